// Every file of the checked-in fuzz corpus (tests/fuzz/corpus/<target>/, the reproducers of past bugs
// among them) through its fuzz target, in every build: release, and AddressSanitizer with UBSan.
// The libFuzzer binaries themselves are built by the fuzz preset (tests/fuzz/fuzz_main.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.h"
#include "io/files.h"
#include "test_helpers.h"

TEST_CASE("every file of the fuzz corpus runs through its target: refused with one mha::Error or read whole") {
  for (const mha_fuzz::Target& target : mha_fuzz::targets()) {
    const std::filesystem::path dir = std::filesystem::path(mha_test::fuzz_corpus_dir()) / target.name;
    CAPTURE(dir.string());
    REQUIRE(std::filesystem::is_directory(dir));
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      CAPTURE(entry.path().string());
      const std::vector<uint8_t> bytes = mha::read_file(entry.path().string());
      target.run(bytes.data(), bytes.size());  // aborts on a mismatch; a sanitizer reports a bad read
      ++files;
    }
    CHECK(files >= 3);
  }
}
