// One libFuzzer binary per target of fuzz_targets.h: MHA_FUZZ_TARGET names the function.
//
// Build (clang 14 with libFuzzer; scripts/setup.sh installs clang-14 and libclang-rt-14-dev):
//   cmake --preset native-asan && cmake --build --preset native-asan   (the sanitizer tests beside them)
// npm test runs each binary briefly over its checked-in corpus (scripts/fuzz.sh). A longer run by hand,
// new inputs written to a scratch folder first so the checked-in corpus stays small:
//   mkdir -p /tmp/found && build/asan/fuzz_model_builder /tmp/found tests/fuzz/corpus/model_builder \
//       -max_total_time=3600 -max_len=65536 -jobs=2
// A crash is written as crash-<hash> in the current folder; reproduce it with
//   build/asan/fuzz_model_builder crash-<hash>
// then add it to tests/fuzz/corpus/<target>/ (the doctest suite runs every corpus file, sanitizers
// included) with the fix. `-minimize_crash=1 -runs=10000` shrinks it first; `-merge=1 CORPUS /tmp/found`
// adds only the inputs that reach new code.
#include <cstddef>
#include <cstdint>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mha_fuzz::MHA_FUZZ_TARGET(data, size);
  return 0;
}
