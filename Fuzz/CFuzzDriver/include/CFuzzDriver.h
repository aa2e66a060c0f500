#ifndef BIKEBEACON_FUZZ_DRIVER_H
#define BIKEBEACON_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer (linked from libclang_rt.fuzzer_no_main) with this process's arguments, calling
/// `test_one_input` for every input; returns when libFuzzer does (it usually exits the process itself).
int bikebeacon_fuzz_run(int argc, char **argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
