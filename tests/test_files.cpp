// Whole files: reading with a cap (a directory, a device, a file too large are each one error naming
// the path and the limit), and writing through PATH.partial, one file or several that land together.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/error.h"
#include "io/files.h"
#include "io/safetensors.h"

namespace {

using Bytes = std::vector<uint8_t>;

// A fresh empty directory, removed when this object goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mha_test_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

Bytes slurp(const std::filesystem::path& p) { return mha::read_file(p.string()); }

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string text_of(const std::filesystem::path& p) {
  return std::string((std::istreambuf_iterator<char>(std::ifstream(p).rdbuf())), {});
}

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const mha::Error& e) {
    return e.code();
  }
  return "(no error)";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading

TEST_CASE("read_file says what is wrong with the path, naming it") {
  TempDir dir;
  SUBCASE("missing") {
    CHECK_THROWS_WITH_AS(mha::read_file("/nonexistent/dir/w.safetensors"),
                         "/nonexistent/dir/w.safetensors: no such file", mha::Error);
  }
  SUBCASE("a directory: not basic_filebuf::underflow") {
    CHECK_THROWS_WITH_AS(mha::read_file(dir.path.string()), (dir.path.string() + " is a directory, not a file").c_str(),
                         mha::Error);
    CHECK(code_of([&] { mha::read_file(dir.path.string()); }) == "file_is_directory");
  }
  SUBCASE("a file over the cap is refused by its size, saying the real size and the limit") {
    const std::filesystem::path big = dir.path / "big.txt";
    write(big, std::string(5000, 'a'));
    CHECK_THROWS_WITH_AS(mha::read_file(big.string(), 4096),
                         (big.string() + " is 5000 bytes; at most 4096 are read").c_str(), mha::Error);
    CHECK(mha::read_file(big.string(), 5000).size() == 5000);
  }
  SUBCASE("a sparse file of 20 GB is refused before a byte is read") {
    const std::filesystem::path huge = dir.path / "huge.bin";
    { std::ofstream(huge, std::ios::binary); }
    std::filesystem::resize_file(huge, 20ull << 30);
    CHECK(code_of([&] { mha::read_file(huge.string()); }) == "file_too_large");
  }
  SUBCASE("a device with no end is read only up to the cap") {
    CHECK_THROWS_WITH_AS(mha::read_file("/dev/zero", 1000),
                         "/dev/zero goes on past 1000 bytes, the most read from a pipe or device", mha::Error);
    CHECK_THROWS_WITH_AS(
        mha::read_file("/dev/zero"),
        doctest::Contains(("/dev/zero goes on past " + std::to_string(mha::kMaxStreamBytes) + " bytes").c_str()),
        mha::Error);
  }
  SUBCASE("an empty file and a small one read whole") {
    write(dir.path / "empty", "");
    CHECK(slurp(dir.path / "empty").empty());
    write(dir.path / "two", "ab");
    CHECK(slurp(dir.path / "two") == Bytes{'a', 'b'});
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST_CASE("write_file_atomically leaves either the whole file or nothing") {
  TempDir dir;
  const std::filesystem::path target = dir.path / "trace.safetensors";
  const std::filesystem::path partial = dir.path / "trace.safetensors.partial";
  const Bytes first = {1, 2, 3, 4, 5};

  SUBCASE("a fresh file: contents written, no .partial left") {
    mha::write_file_atomically(target.string(), first);
    CHECK(slurp(target) == first);
    CHECK_FALSE(std::filesystem::exists(partial));
  }
  SUBCASE("an existing file is replaced whole") {
    mha::write_file_atomically(target.string(), first);
    const Bytes second = mha::SafetensorsWriter().bytes();
    mha::write_file_atomically(target.string(), second);
    CHECK(slurp(target) == second);
    CHECK_FALSE(std::filesystem::exists(partial));
  }
  SUBCASE("an empty file") {
    mha::write_file_atomically(target.string(), {});
    CHECK(std::filesystem::exists(target));
    CHECK(std::filesystem::file_size(target) == 0);
  }
  SUBCASE("a directory that does not exist: an error naming the path, nothing created") {
    const std::filesystem::path missing = dir.path / "no_such_dir" / "out.safetensors";
    CHECK_THROWS_WITH_AS(mha::write_file_atomically(missing.string(), first),
                         doctest::Contains(missing.string().c_str()), mha::Error);
    CHECK_FALSE(std::filesystem::exists(missing));
    CHECK_FALSE(std::filesystem::exists(missing.parent_path()));
    CHECK(std::filesystem::is_empty(dir.path));
  }
  SUBCASE("a target that is a directory: the error names it, no .partial left") {
    std::filesystem::create_directory(target);
    CHECK_THROWS_WITH_AS(mha::write_file_atomically(target.string(), first), doctest::Contains(target.string().c_str()),
                         mha::Error);
    CHECK(std::filesystem::is_directory(target));
    CHECK_FALSE(std::filesystem::exists(partial));
  }
}

TEST_CASE("files that belong together land together or not at all") {
  TempDir dir;
  const std::string model = (dir.path / "m.safetensors").string(), csv = (dir.path / "m.loss.csv").string();
  const auto partials = [&] {
    return std::vector<std::pair<std::string, std::string>>{{mha::write_partial_file(model, {'n', 'e', 'w'}), model},
                                                            {mha::write_partial_file(csv, {'c', 's', 'v'}), csv}};
  };
  const auto leftovers = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path))
      n += e.path().string().find(".partial") != std::string::npos;
    return n;
  };
  SUBCASE("both new, then both replacing old ones") {
    for (int round = 0; round < 2; ++round) {
      CAPTURE(round);
      mha::move_all_into_place(partials());
      CHECK(text_of(model) == "new");
      CHECK(text_of(csv) == "csv");
      CHECK(leftovers() == 0);
      write(model, "old model"), write(csv, "old csv");
    }
  }
  SUBCASE("a directory where the second goes: nothing moves, the old first stays") {
    write(model, "old model");
    const auto p = partials();
    std::filesystem::create_directory(csv);
    write(std::filesystem::path(csv) / "keep", "x");
    CHECK_THROWS_WITH_AS(mha::move_all_into_place(p), doctest::Contains(csv.c_str()), mha::Error);
    CHECK(text_of(model) == "old model");
    CHECK(std::filesystem::is_directory(csv));
    CHECK(leftovers() == 0);
  }
  SUBCASE("the second fails to rename after the first moved: the first's new file goes, nothing was there before") {
    const auto p = partials();
    std::filesystem::remove(p[1].first);  // the second partial vanished: its rename fails
    CHECK_THROWS_AS(mha::move_all_into_place(p), mha::Error);
    CHECK_FALSE(std::filesystem::exists(model));
    CHECK_FALSE(std::filesystem::exists(csv));
    CHECK(leftovers() == 0);
  }
  SUBCASE("check_output_path refuses before the work what the write would refuse after it") {
    CHECK_THROWS_WITH_AS(mha::check_output_path(""), "the output file's name is empty", mha::Error);
    CHECK_THROWS_WITH_AS(mha::check_output_path(dir.path.string()), doctest::Contains("it is a directory"), mha::Error);
    CHECK_THROWS_WITH_AS(mha::check_output_path((dir.path / "no" / "x").string()),
                         doctest::Contains("there is no directory"), mha::Error);
    CHECK_NOTHROW(mha::check_output_path(model));
    CHECK_NOTHROW(mha::check_output_path("relative.safetensors"));
  }
}
