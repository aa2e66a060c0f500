// libdbus-1, the reference D-Bus client library; the include path comes from pkg-config dbus-1.
#include <dbus/dbus.h>
