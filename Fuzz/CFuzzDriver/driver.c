#include "CFuzzDriver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

// The SwiftPM-built harnesses set up state (a database, a server) before fuzzing, so they own `main`
// and hand over to libFuzzer here instead of linking libFuzzer's own main.
int bikebeacon_fuzz_run(int argc, char **argv, int (*test_one_input)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, test_one_input);
}
