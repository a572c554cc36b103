// Where the checkout is: the one file compiled with its path (MHA_SOURCE_DIR, CMakeLists.txt).
#include "test_helpers.h"

namespace mha_test {
std::string source_dir() { return MHA_SOURCE_DIR; }
}  // namespace mha_test
