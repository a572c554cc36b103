#include "io/files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "base/error.h"

namespace mha {

namespace {

[[noreturn]] void cannot_read(const std::string& path, int error) {
  if (error == ENOENT || error == ENOTDIR) throw Error(ErrorCode::file_not_found, "", {{"file", path}});
  throw Error(ErrorCode::file_unreadable, "", {{"file", path}, {"why", std::strerror(error)}});
}

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) cannot_read(path, errno);
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::file_is_directory, "", {{"file", path}});
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<uint64_t>(st.st_size) > max_bytes)
    throw Error(ErrorCode::file_too_large, "",
                {{"file", path}, {"bytes", std::to_string(st.st_size)}, {"max", std::to_string(max_bytes)}});
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) cannot_read(path, errno);
  // A regular file is read at its size; a pipe or device (whose size says nothing) up to the cap and
  // one byte more, which tells it goes on past it.
  std::vector<uint8_t> bytes;
  if (regular)
    bytes.reserve(static_cast<size_t>(st.st_size));
  else
    max_bytes = std::min(max_bytes, kMaxStreamBytes);
  uint8_t chunk[1 << 16];
  while (true) {
    const size_t n = std::fread(chunk, 1, sizeof chunk, file.get());
    if (n > 0 && bytes.size() + n > max_bytes) {
      if (regular)  // it grew while being read
        throw Error(ErrorCode::file_too_large, "",
                    {{"file", path}, {"bytes", std::to_string(bytes.size() + n)}, {"max", std::to_string(max_bytes)}});
      throw Error(ErrorCode::file_too_long, "", {{"file", path}, {"max", std::to_string(max_bytes)}});
    }
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (n < sizeof chunk) break;
  }
  if (std::ferror(file.get())) cannot_read(path, errno);
  return bytes;
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("the output file's name is empty");
  if (is_directory(path)) throw Error("cannot write '" + path + "': it is a directory");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (!is_directory(dir)) throw Error("cannot write '" + path + "': there is no directory '" + dir + "'");
}

std::string write_partial_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string partial = path + ".partial";
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::remove(partial.c_str());
    throw Error("writing '" + path + "' failed (disk full?)");
  }
  return partial;
}

void move_into_place(const std::string& partial, const std::string& path) {
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(partial.c_str());
    throw Error("cannot move the finished file into place at '" + path + "': " + why);
  }
}

void write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  move_into_place(write_partial_file(path, bytes), path);
}

void move_all_into_place(const std::vector<std::pair<std::string, std::string>>& partial_to_path) {
  // A file already at a target is first moved aside (to PATH.previous.partial), so it can be put back.
  struct Moved {
    std::string path, previous;  // previous: "" when nothing was there
  };
  std::vector<Moved> moved;
  const auto undo = [&](const std::string& why) {
    for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
      if (it->previous.empty())
        std::remove(it->path.c_str());
      else
        std::rename(it->previous.c_str(), it->path.c_str());
    }
    for (const auto& [partial, path] : partial_to_path) std::remove(partial.c_str());
    throw Error(why);
  };
  for (const auto& [partial, path] : partial_to_path)
    if (is_directory(path)) undo("cannot move the finished file into place at '" + path + "': it is a directory");
  for (const auto& [partial, path] : partial_to_path) {
    Moved m{path, ""};
    if (exists(path)) {
      m.previous = path + ".previous.partial";
      if (std::rename(path.c_str(), m.previous.c_str()) != 0)
        undo("cannot move the old '" + path + "' aside to replace it: " + std::strerror(errno));
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      if (!m.previous.empty()) std::rename(m.previous.c_str(), path.c_str());
      undo("cannot move the finished file into place at '" + path + "': " + why);
    }
    moved.push_back(std::move(m));
  }
  for (const Moved& m : moved)
    if (!m.previous.empty()) std::remove(m.previous.c_str());
}

}  // namespace mha
