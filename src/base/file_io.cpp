#include "base/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <sys/stat.h>
#include <unistd.h>

namespace rung {

std::optional<std::string> read_file(const std::string& path, DiagnosticSink& diags, std::uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.error("C0001", "cannot read '" + path + "': it is a directory");
    return std::nullopt;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    diags.error("C0001", "cannot read '" + path + "': " + std::strerror(errno));
    return std::nullopt;
  }
  // A device (/dev/zero, a terminal) has no end to read to: only regular files and pipes
  // are inputs, and a pipe is read no further than `max_bytes`.
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    std::fclose(f);
    diags.error("C0001", "cannot read '" + path + "': it is not a regular file (a device or socket)");
    return std::nullopt;
  }
  std::string data;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (data.size() + n > max_bytes) {
      std::fclose(f);
      diags.error("C0002", "'" + path + "' is larger than the limit of " + std::to_string(max_bytes) + " bytes");
      return std::nullopt;
    }
    data.append(buf, n);
  }
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    diags.error("C0001", "cannot read '" + path + "': read error");
    return std::nullopt;
  }
  return data;
}

std::optional<std::string> make_writable_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return ec.message();
  if (!fs::is_directory(dir, ec)) return "it exists and is not a folder";
  std::string probe = (fs::path(dir) / (".rung-write-test." + std::to_string(::getpid()))).string();
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) return std::string(std::strerror(errno));
  std::fclose(f);
  std::remove(probe.c_str());
  return std::nullopt;
}

bool write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes, DiagnosticSink& diags) {
  // Unique per process and per call, so concurrent writers of one path never share a temporary.
  static std::atomic<std::uint64_t> serial{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    diags.error("C0003", "cannot write '" + path + "': " + std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (::fsync(::fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    diags.error("C0003", "cannot write '" + path + "': " + std::strerror(err));
    return false;
  }
  return true;
}

}  // namespace rung
