#include "conformance/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/file_io.h"

namespace rung::conformance {

namespace fs = std::filesystem;

// What becomes of a damaged entry: it is never read, and never repaired in place (its name
// is the hash of bytes that are lost); what replaces it depends on the kind.
static std::string damaged_note(std::string_view kind) {
  if (kind == "receipts")
    return "the kernel counts as not conformed: `rung conform` or `rung run --receipts=conform` writes a new receipt "
           "(under another name); delete this file to stop this warning";
  if (kind == "records") return "a run record cannot be re-created: delete the file; running the program again records a new run";
  return "the next run that stores the same content writes it again, in place of this file";
}

std::string Store::path(std::string_view kind, const Hash256& id) const {
  return (fs::path(root_) / std::string(kind) / id.hex()).string();
}

std::optional<Hash256> Store::put(std::string_view kind, std::span<const std::uint8_t> bytes, DiagnosticSink& diags) const {
  Hash256 id = sha3_256(bytes);
  std::error_code ec;
  fs::create_directories(fs::path(root_) / std::string(kind), ec);
  if (ec) {
    diags.error("Q0001", "cannot create the store folder '" + (fs::path(root_) / std::string(kind)).string() + "': " + ec.message())
        .note("set RUNG_HOME to a writable folder");
    return std::nullopt;
  }
  std::string p = path(kind, id);
  if (fs::is_regular_file(p, ec)) {  // content-addressed: an intact file with this name is this content
    DiagnosticSink quiet;
    if (get(kind, id, quiet)) return id;
  }
  DiagnosticSink io;
  if (!write_file_atomic(p, bytes, io)) {
    diags.error("Q0001", "cannot write to the store: " + (io.all().empty() ? p : io.all().front().message))
        .note("set RUNG_HOME to a writable folder");
    return std::nullopt;
  }
  return id;
}

Store::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::optional<Store::Lock> Store::lock(std::string_view kind, DiagnosticSink& diags) const {
  fs::path dir = fs::path(root_) / std::string(kind);
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string p = (dir / ".lock").string();
  int fd = ec ? -1 : ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) {
    std::string why = ec ? ec.message() : std::strerror(errno);
    if (fd >= 0) ::close(fd);
    diags.error("Q0001", "cannot lock the store folder '" + dir.string() + "': " + why).note("set RUNG_HOME to a writable folder");
    return std::nullopt;
  }
  return Lock(fd);
}

std::optional<std::vector<std::uint8_t>> Store::get(std::string_view kind, const Hash256& id, DiagnosticSink& diags) const {
  std::string p = path(kind, id);
  std::error_code ec;
  auto st = fs::symlink_status(p, ec);
  if (ec || !fs::exists(st)) {
    diags.error("Q0003", "no " + std::string(kind) + " entry " + id.short_hex() + " in the store '" + root_ + "'");
    return std::nullopt;
  }
  if (!fs::is_regular_file(st)) {
    diags.error("Q0002", "store entry '" + p + "' is not a regular file; ignored");
    return std::nullopt;
  }
  DiagnosticSink io;
  auto data = read_file(p, io, std::uint64_t{1} << 26);
  if (!data) {
    diags.error("Q0002", "cannot read store entry '" + p + "': " + (io.all().empty() ? "?" : io.all().front().message));
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes(data->begin(), data->end());
  if (sha3_256(bytes) != id) {
    diags.error("Q0002", "store entry '" + p + "' is corrupt: its content does not hash to its name; ignored")
        .note(damaged_note(kind));
    return std::nullopt;
  }
  return bytes;
}

std::vector<Hash256> Store::list(std::string_view kind) const {
  std::vector<Hash256> out;
  std::error_code ec;
  fs::directory_iterator it(fs::path(root_) / std::string(kind), ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() != 64) continue;
    if (auto h = Hash256::from_hex(name)) out.push_back(*h);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<Hash256> Store::resolve(std::string_view kind, std::string_view prefix, DiagnosticSink& diags) const {
  std::string p(prefix);
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (p.empty() || p.size() > 64 || p.find_first_not_of("0123456789abcdef") != std::string::npos) {
    diags.error("Q0006", "`" + std::string(prefix) + "` is not a " + std::string(kind) + " id (hex digits, a prefix is enough)");
    return std::nullopt;
  }
  std::vector<Hash256> hits;
  for (const auto& h : list(kind))
    if (h.hex().compare(0, p.size(), p) == 0) hits.push_back(h);
  if (hits.empty()) {
    diags.error("Q0004", "no " + std::string(kind) + " entry starts with `" + p + "` in the store '" + root_ + "'");
    return std::nullopt;
  }
  if (hits.size() > 1) {
    auto& d = diags.error("Q0005", "`" + p + "` matches " + std::to_string(hits.size()) + " " + std::string(kind) + " entries");
    for (std::size_t i = 0; i < hits.size() && i < 5; ++i) d.note(hits[i].hex());
    return std::nullopt;
  }
  return hits[0];
}

}  // namespace rung::conformance
