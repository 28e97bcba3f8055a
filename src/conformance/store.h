// The local store: content-addressed files under one folder, the root its surface gives
// (rung::Environment::home: $RUNG_HOME, default ~/.rung, for the CLI), one folder per kind
// (receipts/, records/), each file named by the SHA3-256 of its bytes and written
// atomically. A file whose name is not its hash, that is not a regular file, or that does
// not decode is reported (Q-coded diagnostic) and ignored; it never crashes a reader.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/hash.h"

namespace rung::conformance {

class Store {
 public:
  explicit Store(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  // Writes `bytes` as kind/<sha3>; returns the hash (Q0001 on I/O failure).
  std::optional<Hash256> put(std::string_view kind, std::span<const std::uint8_t> bytes, DiagnosticSink& diags) const;
  // Reads kind/<id> and checks that its content hashes to its name (Q0002 corrupt, Q0003 missing).
  std::optional<std::vector<std::uint8_t>> get(std::string_view kind, const Hash256& id, DiagnosticSink& diags) const;
  // The ids of kind/, sorted (files whose names are not 64 hex digits are skipped).
  std::vector<Hash256> list(std::string_view kind) const;
  // The one id that starts with `prefix` (Q0004 none, Q0005 ambiguous, Q0006 not hex).
  std::optional<Hash256> resolve(std::string_view kind, std::string_view prefix, DiagnosticSink& diags) const;
  std::string path(std::string_view kind, const Hash256& id) const;

  // An exclusive lock on kind/ across processes (flock on kind/.lock), held while it lives:
  // for a check-then-write that must not interleave with another writer's (one receipt per
  // key). nullopt with Q0001 when the lock file cannot be made.
  class Lock {
   public:
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    Lock& operator=(Lock&&) = delete;
    ~Lock();

   private:
    int fd_;
  };
  std::optional<Lock> lock(std::string_view kind, DiagnosticSink& diags) const;

 private:
  std::string root_;
};

}  // namespace rung::conformance
