#ifndef CFUZZER_H
#define CFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's libclang_rt.fuzzer, linked by -sanitize=fuzzer): what
/// its own main calls. The harnesses call it from the entry point SwiftPM gives an
/// executable target, so libFuzzer's main is not needed.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
