// The installed <dbus/dbus.h>'s view of libdbus-1; exits 1 naming the first entry of layout.h
// where CDBus.h differs. A function whose type differs fails to compile.
#include <dbus/dbus.h>
#include <stdio.h>
#include "DBusFunctions.h"
#include "layout.h"

BIKEBEACON_DBUS_FUNCTIONS(BIKEBEACON_CHECK_F, BIKEBEACON_CHECK_V)
static const long installed_layout[] = BIKEBEACON_DBUS_LAYOUT;
extern const long declared_layout[sizeof installed_layout / sizeof *installed_layout];

int main(void) {
    for (size_t i = 0; i < sizeof installed_layout / sizeof *installed_layout; i++) {
        if (installed_layout[i] != declared_layout[i]) {
            printf("layout.h entry %zu: <dbus/dbus.h> %ld, CDBus.h %ld\n", i, installed_layout[i], declared_layout[i]);
            return 1;
        }
    }
    printf("CDBus.h matches <dbus/dbus.h>\n");
    return 0;
}
