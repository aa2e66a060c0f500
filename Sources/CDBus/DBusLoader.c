// Loads libdbus-1 on first use and forwards each declared function to it (see CDBus.h).
#include "CDBus.h"
#include "DBusFunctions.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define POINTER_F(type, name, parameters, arguments) static type(*loaded_##name) parameters;
#define POINTER_V(name, parameters, arguments) static void(*loaded_##name) parameters;
BIKEBEACON_DBUS_FUNCTIONS(POINTER_F, POINTER_V)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char problem[512];

static void load(void) {
    // The soname Debian's libdbus-1-3 has carried since 2006.
    void *library = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(problem, sizeof problem, "cannot load libdbus-1.so.3 (%s): install the package libdbus-1-3", dlerror());
        return;
    }
#define RESOLVE(name) \
    *(void **)&loaded_##name = dlsym(library, #name); \
    if (loaded_##name == NULL) { \
        snprintf(problem, sizeof problem, "libdbus-1.so.3 lacks %s: upgrade the package libdbus-1-3", #name); \
        return; \
    }
#define RESOLVE_F(type, name, parameters, arguments) RESOLVE(name)
#define RESOLVE_V(name, parameters, arguments) RESOLVE(name)
    BIKEBEACON_DBUS_FUNCTIONS(RESOLVE_F, RESOLVE_V)
}

const char *bikebeacon_dbus_load(void) {
    pthread_once(&once, load);
    return problem[0] == '\0' ? NULL : problem;
}

/// A message can be built before any bus is opened (tests do), so a forwarder loads the library
/// itself; only `BusConnection.open`, which checks first, turns a missing library into an error.
static void ensure_loaded(void) {
    const char *failure = bikebeacon_dbus_load();
    if (failure != NULL) {
        fprintf(stderr, "bikebeacon: %s\n", failure);
        abort();
    }
}

#define FORWARD_F(type, name, parameters, arguments) \
    type name parameters { \
        if (loaded_##name == NULL) ensure_loaded(); \
        return loaded_##name arguments; \
    }
#define FORWARD_V(name, parameters, arguments) \
    void name parameters { \
        if (loaded_##name == NULL) ensure_loaded(); \
        loaded_##name arguments; \
    }
BIKEBEACON_DBUS_FUNCTIONS(FORWARD_F, FORWARD_V)
