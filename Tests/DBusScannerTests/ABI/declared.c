// CDBus.h's view of libdbus-1 (see layout.h).
#include "CDBus.h"
#include "DBusFunctions.h"
#include "layout.h"

BIKEBEACON_DBUS_FUNCTIONS(BIKEBEACON_CHECK_F, BIKEBEACON_CHECK_V)
const long declared_layout[] = BIKEBEACON_DBUS_LAYOUT;
