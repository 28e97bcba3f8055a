// Diagnostics as values: what went wrong (or might have), with a code, a location and notes.
// Every API call that can fail on the caller's data returns a Result<T> holding either the
// value or the diagnostics; nothing throws out of the API for a user error. Warnings ride
// along with a success. docs/diagnostics.md lists every code; docs/api-cpp.md the M0xxx ones
// of the API boundary itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rung/export.h"

namespace rung {

enum class Severity { Error, Warning, Note };

// Where a diagnostic points: a file (or the name given to in-memory source), 1-based line and
// column of the primary span's start and end.
struct Location {
  std::string file;
  std::uint32_t line = 0, column = 0, end_line = 0, end_column = 0;
};

// One diagnostic.
struct Message {
  std::string code;  // "E2101", "M0003"
  Severity severity = Severity::Error;
  std::string text;
  std::optional<Location> location;  // absent: not about a place in a source
  std::vector<std::string> notes;
};

// The diagnostics of one call, in the order they were reported. Rendering quotes the source
// lines, so a Diagnostics keeps the sources it points into alive.
class RUNG_API Diagnostics {
 public:
  Diagnostics();
  ~Diagnostics();
  Diagnostics(const Diagnostics&);
  Diagnostics& operator=(const Diagnostics&);
  Diagnostics(Diagnostics&&) noexcept;
  Diagnostics& operator=(Diagnostics&&) noexcept;

  // A diagnostic of the API boundary (no source to point into).
  static Diagnostics error(std::string code, std::string text, std::vector<std::string> notes = {});
  static Diagnostics warning(std::string code, std::string text, std::vector<std::string> notes = {});

  const std::vector<Message>& messages() const;
  bool empty() const;
  bool has_errors() const;
  bool contains(std::string_view code) const;
  // The first error (or, without one, the first diagnostic): what an exception would say.
  std::string summary() const;
  void append(const Diagnostics& other);

  // As the CLI prints them: for people (source line, underlined span, notes; ANSI colour when
  // asked) or for tools (a JSON array, one object per diagnostic).
  std::string text(bool color = false) const;
  std::string json() const;

  struct Impl;  // the library's own form, with the sources it points into
  explicit Diagnostics(std::shared_ptr<Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// A value or the diagnostics that say why there is none.
template <typename T>
class Result {
 public:
  Result(T value, Diagnostics warnings = {}) : value_(std::move(value)), diags_(std::move(warnings)) {}
  Result(Diagnostics errors) : diags_(std::move(errors)) {}  // must hold an error

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  // Errors on failure; warnings (possibly none) on success.
  const Diagnostics& diagnostics() const { return diags_; }

 private:
  std::optional<T> value_;
  Diagnostics diags_;
};

// For calls that return nothing but can fail.
struct Done {};
using Status = Result<Done>;

}  // namespace rung
