// Whole files, read and written by the CLI and the tests (the page hands the core bytes instead).
// Reading checks what the path is and how big before taking its bytes, and stops at a cap, so a
// directory, a device such as /dev/zero or a file far larger than asked is one clear mha::Error
// naming the path, never a read until memory runs out. Writing goes through PATH.partial, so a
// failure never leaves a half-written file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/config.h"

namespace mha {

// The bytes of `path`, at most max_bytes of them (and at most kMaxStreamBytes of a pipe or device): a
// larger file is refused before it is read, a stream once it goes past the cap, with the limit said.
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes = kMaxFileBytes);

// Throws unless a file could be written at `path`: a name that is not empty, not a directory, in a
// directory that exists. For checking an output before long work, not instead of the write's own errors.
void check_output_path(const std::string& path);

// write_file_atomically writes a temporary beside the target and renames it. Its two halves are for
// files that must appear together: write every PATH.partial first, then move them all into place.
void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);
std::string write_partial_file(const std::string& path, const std::vector<uint8_t>& bytes);  // -> PATH.partial
void move_into_place(const std::string& partial, const std::string& path);  // removes `partial` if it fails
// Each {partial, path} moved into place, all or none: if one cannot be, those already moved are put
// back as they were (a file that was there is there again, one that was not is gone) and every
// partial is removed, then the error is thrown.
void move_all_into_place(const std::vector<std::pair<std::string, std::string>>& partial_to_path);

}  // namespace mha
