// Every function of CDBus.h, with its type spelled once: the loader forwards each, and
// Tests/DBusScannerTests/ABI checks each against the installed <dbus/dbus.h>.
// F(type, name, parameters, arguments) for a function that returns a value, V for one that does not.
#define BIKEBEACON_DBUS_FUNCTIONS(F, V) \
    F(dbus_bool_t, dbus_threads_init_default, (void), ()) \
    V(dbus_free, (void *memory), (memory)) \
    V(dbus_error_init, (DBusError *error), (error)) \
    V(dbus_error_free, (DBusError *error), (error)) \
    F(dbus_bool_t, dbus_error_is_set, (const DBusError *error), (error)) \
    F(DBusConnection *, dbus_bus_get_private, (DBusBusType type, DBusError *error), (type, error)) \
    F(dbus_bool_t, dbus_bus_register, (DBusConnection *connection, DBusError *error), (connection, error)) \
    V(dbus_bus_add_match, (DBusConnection *connection, const char *rule, DBusError *error), (connection, rule, error)) \
    F(DBusConnection *, dbus_connection_open_private, (const char *address, DBusError *error), (address, error)) \
    V(dbus_connection_close, (DBusConnection *connection), (connection)) \
    V(dbus_connection_unref, (DBusConnection *connection), (connection)) \
    V(dbus_connection_set_exit_on_disconnect, (DBusConnection *connection, dbus_bool_t exit_on_disconnect), \
      (connection, exit_on_disconnect)) \
    F(dbus_bool_t, dbus_connection_get_is_connected, (DBusConnection *connection), (connection)) \
    F(dbus_bool_t, dbus_connection_send, (DBusConnection *connection, DBusMessage *message, dbus_uint32_t *client_serial), \
      (connection, message, client_serial)) \
    F(DBusMessage *, dbus_connection_send_with_reply_and_block, \
      (DBusConnection *connection, DBusMessage *message, int timeout_milliseconds, DBusError *error), \
      (connection, message, timeout_milliseconds, error)) \
    V(dbus_connection_flush, (DBusConnection *connection), (connection)) \
    F(dbus_bool_t, dbus_connection_read_write, (DBusConnection *connection, int timeout_milliseconds), \
      (connection, timeout_milliseconds)) \
    F(DBusMessage *, dbus_connection_pop_message, (DBusConnection *connection), (connection)) \
    F(DBusMessage *, dbus_message_new_method_call, (const char *bus_name, const char *path, const char *iface, const char *method), \
      (bus_name, path, iface, method)) \
    V(dbus_message_unref, (DBusMessage *message), (message)) \
    V(dbus_message_set_no_reply, (DBusMessage *message, dbus_bool_t no_reply), (message, no_reply)) \
    F(int, dbus_message_get_type, (DBusMessage *message), (message)) \
    F(dbus_bool_t, dbus_message_is_signal, (DBusMessage *message, const char *iface, const char *signal_name), \
      (message, iface, signal_name)) \
    F(const char *, dbus_message_get_sender, (DBusMessage *message), (message)) \
    F(const char *, dbus_message_get_path, (DBusMessage *message), (message)) \
    F(const char *, dbus_message_get_member, (DBusMessage *message), (message)) \
    F(const char *, dbus_message_get_interface, (DBusMessage *message), (message)) \
    F(const char *, dbus_message_get_error_name, (DBusMessage *message), (message)) \
    F(DBusMessage *, dbus_message_demarshal, (const char *str, int len, DBusError *error), (str, len, error)) \
    F(dbus_bool_t, dbus_message_iter_init, (DBusMessage *message, DBusMessageIter *iter), (message, iter)) \
    V(dbus_message_iter_init_append, (DBusMessage *message, DBusMessageIter *iter), (message, iter)) \
    F(int, dbus_message_iter_get_arg_type, (DBusMessageIter *iter), (iter)) \
    F(int, dbus_message_iter_get_element_type, (DBusMessageIter *iter), (iter)) \
    F(char *, dbus_message_iter_get_signature, (DBusMessageIter *iter), (iter)) \
    V(dbus_message_iter_get_basic, (DBusMessageIter *iter, void *value), (iter, value)) \
    F(dbus_bool_t, dbus_message_iter_next, (DBusMessageIter *iter), (iter)) \
    V(dbus_message_iter_recurse, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub)) \
    F(dbus_bool_t, dbus_message_iter_append_basic, (DBusMessageIter *iter, int type, const void *value), (iter, type, value)) \
    F(dbus_bool_t, dbus_message_iter_open_container, \
      (DBusMessageIter *iter, int type, const char *contained_signature, DBusMessageIter *sub), \
      (iter, type, contained_signature, sub)) \
    F(dbus_bool_t, dbus_message_iter_close_container, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub)) \
    V(dbus_message_iter_abandon_container, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub))
