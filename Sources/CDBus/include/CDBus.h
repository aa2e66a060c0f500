// The part of libdbus-1's API that bikebeacon uses, declared here rather than taken from
// <dbus/dbus.h>: the library is loaded when the sentinel first opens the bus, not linked, so
// `decode`, `replay` and an HCI or capture sentinel never map it (with libsystemd, libgcrypt and
// the compressors it pulls in, about 1 MB of a Pi Zero's memory).
//
// The declarations are libdbus-1's stable ABI (unchanged since 1.0); LibdbusABITests compiles
// them against the installed <dbus/dbus.h>, so a mismatch fails the tests.
#ifndef BIKEBEACON_CDBUS_H
#define BIKEBEACON_CDBUS_H

typedef unsigned int dbus_uint32_t;
typedef dbus_uint32_t dbus_bool_t;

typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

typedef enum { DBUS_BUS_SESSION, DBUS_BUS_SYSTEM, DBUS_BUS_STARTER } DBusBusType;

#define DBUS_MESSAGE_TYPE_ERROR 3
#define DBUS_MESSAGE_TYPE_SIGNAL 4

/// Loads libdbus-1.so.3 (once); NULL when it is ready, else what went wrong, for the operator.
/// The functions below load it themselves when called first, and abort if it cannot be loaded.
const char *bikebeacon_dbus_load(void);

dbus_bool_t dbus_threads_init_default(void);
void dbus_free(void *memory);

void dbus_error_init(DBusError *error);
void dbus_error_free(DBusError *error);
dbus_bool_t dbus_error_is_set(const DBusError *error);

DBusConnection *dbus_bus_get_private(DBusBusType type, DBusError *error);
dbus_bool_t dbus_bus_register(DBusConnection *connection, DBusError *error);
void dbus_bus_add_match(DBusConnection *connection, const char *rule, DBusError *error);

DBusConnection *dbus_connection_open_private(const char *address, DBusError *error);
void dbus_connection_close(DBusConnection *connection);
void dbus_connection_unref(DBusConnection *connection);
void dbus_connection_set_exit_on_disconnect(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
dbus_bool_t dbus_connection_get_is_connected(DBusConnection *connection);
dbus_bool_t dbus_connection_send(DBusConnection *connection, DBusMessage *message, dbus_uint32_t *client_serial);
DBusMessage *dbus_connection_send_with_reply_and_block(DBusConnection *connection, DBusMessage *message,
                                                       int timeout_milliseconds, DBusError *error);
void dbus_connection_flush(DBusConnection *connection);
dbus_bool_t dbus_connection_read_write(DBusConnection *connection, int timeout_milliseconds);
DBusMessage *dbus_connection_pop_message(DBusConnection *connection);

DBusMessage *dbus_message_new_method_call(const char *bus_name, const char *path, const char *iface, const char *method);
void dbus_message_unref(DBusMessage *message);
void dbus_message_set_no_reply(DBusMessage *message, dbus_bool_t no_reply);
int dbus_message_get_type(DBusMessage *message);
dbus_bool_t dbus_message_is_signal(DBusMessage *message, const char *iface, const char *signal_name);
const char *dbus_message_get_sender(DBusMessage *message);
const char *dbus_message_get_path(DBusMessage *message);
const char *dbus_message_get_member(DBusMessage *message);
const char *dbus_message_get_interface(DBusMessage *message);
const char *dbus_message_get_error_name(DBusMessage *message);
/// Parses a message from its wire form (the D-Bus fuzz harness feeds it any bytes).
DBusMessage *dbus_message_demarshal(const char *str, int len, DBusError *error);

dbus_bool_t dbus_message_iter_init(DBusMessage *message, DBusMessageIter *iter);
void dbus_message_iter_init_append(DBusMessage *message, DBusMessageIter *iter);
int dbus_message_iter_get_arg_type(DBusMessageIter *iter);
int dbus_message_iter_get_element_type(DBusMessageIter *iter);
char *dbus_message_iter_get_signature(DBusMessageIter *iter);
void dbus_message_iter_get_basic(DBusMessageIter *iter, void *value);
dbus_bool_t dbus_message_iter_next(DBusMessageIter *iter);
void dbus_message_iter_recurse(DBusMessageIter *iter, DBusMessageIter *sub);
dbus_bool_t dbus_message_iter_append_basic(DBusMessageIter *iter, int type, const void *value);
dbus_bool_t dbus_message_iter_open_container(DBusMessageIter *iter, int type, const char *contained_signature,
                                             DBusMessageIter *sub);
dbus_bool_t dbus_message_iter_close_container(DBusMessageIter *iter, DBusMessageIter *sub);
void dbus_message_iter_abandon_container(DBusMessageIter *iter, DBusMessageIter *sub);

#endif
