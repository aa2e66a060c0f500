// The sizes, offsets and constants of CDBus.h's types: the same list is taken from the installed
// <dbus/dbus.h> (installed.c) and from CDBus.h (declared.c), and must match.
#include <stddef.h>
#define BIKEBEACON_DBUS_LAYOUT { \
    sizeof(DBusError), offsetof(DBusError, name), offsetof(DBusError, message), offsetof(DBusError, padding1), \
    sizeof(DBusMessageIter), offsetof(DBusMessageIter, dummy3), offsetof(DBusMessageIter, pad1), \
    offsetof(DBusMessageIter, pad3), sizeof(dbus_uint32_t), sizeof(dbus_bool_t), sizeof(DBusBusType), \
    DBUS_BUS_SESSION, DBUS_BUS_SYSTEM, DBUS_BUS_STARTER, DBUS_MESSAGE_TYPE_ERROR, DBUS_MESSAGE_TYPE_SIGNAL }

// Each function's type, as DBusFunctions.h spells it, against the header in scope.
#define BIKEBEACON_CHECK_F(type, name, parameters, arguments) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) parameters), #name " has another type");
#define BIKEBEACON_CHECK_V(name, parameters, arguments) BIKEBEACON_CHECK_F(void, name, parameters, arguments)
