#include "onnx/external_data.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"
#include "onnx/place.h"

namespace rung::onnx_import {
namespace {

std::vector<std::string> components(const std::string& location) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (true) {
    std::size_t slash = location.find('/', begin);
    out.push_back(location.substr(begin, slash == std::string::npos ? std::string::npos : slash - begin));
    if (slash == std::string::npos) return out;
    begin = slash + 1;
  }
}

// A decimal u64 without sign, spaces or overflow.
std::optional<std::uint64_t> parse_u64(const std::string& s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

std::string location_problem(const std::string& location) {
  if (location.empty()) return "it is empty";
  if (location.size() > 4096) return "it is longer than 4096 bytes";
  if (location.find('\0') != std::string::npos) return "it contains a NUL byte";
  if (!utf8::is_valid(location)) return "it is not valid UTF-8";
  if (location.front() == '/') return "it is an absolute path";
  if (location.find('\\') != std::string::npos) return "it contains a backslash (the separator is /)";
  for (const auto& c : components(location)) {
    if (c.empty()) return "it has an empty component (//, or a trailing /)";
    if (c == "..") return "it has a .. component: external data must lie below the model's folder";
    if (c == ".") return "it has a . component";
  }
  return {};
}

ExternalFiles::~ExternalFiles() {
  for (auto& [name, f] : open_) ::close(f.fd);
}

std::optional<ExternalFiles::File> ExternalFiles::open(const std::string& location, const std::string& place,
                                                       DiagnosticSink& diags) {
  if (auto it = open_.find(location); it != open_.end()) return it->second;
  auto refuse = [&](std::string why) {
    diags.error("I0008", place + ": external data " + quoted(location) + " refused: " + why);
    return std::nullopt;
  };
  int dir = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return refuse("the model's folder cannot be opened (" + std::string(std::strerror(errno)) + ")");
  auto parts = components(location);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    int next = ::openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    ::close(dir);
    if (next < 0)
      return refuse(err == ELOOP || err == ENOTDIR ? "folder " + quoted(parts[i]) + " is a symbolic link or not a folder"
                                                   : "folder " + quoted(parts[i]) + " cannot be opened (" + std::strerror(err) + ")");
    dir = next;
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked right after.
  int fd = ::openat(dir, parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int err = errno;
  ::close(dir);
  if (fd < 0) return refuse(err == ELOOP ? "it is a symbolic link" : "it cannot be opened (" + std::string(std::strerror(err)) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return refuse("it is not a regular file (a FIFO, a device or a folder)");
  }
  File f{fd, static_cast<std::uint64_t>(st.st_size)};
  open_.emplace(location, f);
  return f;
}

std::optional<std::vector<std::uint8_t>> ExternalFiles::read(const std::vector<std::pair<std::string, std::string>>& entries,
                                                             std::uint64_t bytes, const std::string& place, DiagnosticSink& diags) {
  std::optional<std::string> location;
  std::optional<std::uint64_t> offset, length;
  for (const auto& [key, value] : entries) {
    if (key == "location") {
      location = value;
    } else if (key == "offset" || key == "length") {
      auto v = parse_u64(value);
      if (!v) {
        diags.error("I0009", place + ": external data " + key + " " + quoted(value) + " is not a non-negative decimal integer");
        return std::nullopt;
      }
      (key == "offset" ? offset : length) = *v;
    }  // "checksum" and other keys carry nothing rung needs
  }
  if (!location) {
    diags.error("I0008", place + ": external data without a location");
    return std::nullopt;
  }
  if (std::string why = location_problem(*location); !why.empty()) {
    diags.error("I0008", place + ": external data " + quoted(*location) + " refused: " + why)
        .note("external data is read only from files below the model's folder, named by relative paths");
    return std::nullopt;
  }
  if (dir_.empty()) {
    diags.error("I0008", place + ": external data " + quoted(*location) + " refused: the model was given as bytes, without a folder");
    return std::nullopt;
  }
  std::uint64_t off = offset.value_or(0), len = length.value_or(bytes);
  if (len != bytes) {
    diags.error("I0009", place + ": external data length " + std::to_string(len) + " is not the tensor's byte size " + std::to_string(bytes));
    return std::nullopt;
  }
  auto f = open(*location, place, diags);
  if (!f) return std::nullopt;
  if (off > f->size || len > f->size - off) {
    diags.error("I0009", place + ": external data " + quoted(*location) + " bytes " + std::to_string(off) + ".." +
                             (off > UINT64_MAX - len ? std::string("(overflow)") : std::to_string(off + len)) +
                             " lie outside the file (" + std::to_string(f->size) + " bytes)");
    return std::nullopt;
  }
  std::vector<std::uint8_t> out(len);
  std::uint64_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(f->fd, out.data() + done, len - done, static_cast<off_t>(off + done));
    if (n <= 0) {
      diags.error("I0009", place + ": external data " + quoted(*location) + " could not be read to its end (the file changed?)");
      return std::nullopt;
    }
    done += static_cast<std::uint64_t>(n);
  }
  return out;
}

}  // namespace rung::onnx_import
