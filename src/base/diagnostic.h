// User-facing diagnostics: a code (`E0102`, `K0003`, `G0005`), a severity, a message,
// labelled byte spans (one primary), notes and suggested edits. Code prefixes:
//   E1xxx syntax   E2xxx semantics   G0xxx GraphIR invariants   K0xxx .keg files
//   C0xxx command line   (docs/diagnostics.md lists every code)
// Rendering lives in diagnostic_render.h; this header only describes.
#pragma once

#include <string>
#include <vector>

#include "base/source.h"
#include "rung/diagnostics.h"  // Severity

namespace rung {

const char* severity_name(Severity s);

struct Label {
  Span span;
  std::string message;
  bool primary = false;
};

struct Suggestion {
  Span span;                // what to replace
  std::string replacement;  // with what
  std::string message;      // why
};

struct Diagnostic {
  std::string code;
  Severity severity = Severity::Error;
  std::string message;
  std::vector<Label> labels;
  std::vector<std::string> notes;
  std::vector<Suggestion> suggestions;

  Diagnostic& primary(Span span, std::string msg = {}) {
    labels.push_back({span, std::move(msg), true});
    return *this;
  }
  Diagnostic& secondary(Span span, std::string msg = {}) {
    labels.push_back({span, std::move(msg), false});
    return *this;
  }
  Diagnostic& note(std::string msg) {
    notes.push_back(std::move(msg));
    return *this;
  }
  Diagnostic& suggest(Span span, std::string replacement, std::string msg) {
    suggestions.push_back({span, std::move(replacement), std::move(msg)});
    return *this;
  }
  const Label* primary_label() const;
};

// Collects diagnostics in the order they were reported.
class DiagnosticSink {
 public:
  Diagnostic& error(std::string code, std::string message) { return add(Severity::Error, std::move(code), std::move(message)); }
  Diagnostic& warning(std::string code, std::string message) { return add(Severity::Warning, std::move(code), std::move(message)); }
  Diagnostic& add(Severity s, std::string code, std::string message);
  void append(const DiagnosticSink& other);

  const std::vector<Diagnostic>& all() const { return diags_; }
  Diagnostic& last() { return diags_.back(); }  // to add context notes on the way out
  bool has_errors() const { return errors_ > 0; }
  std::size_t error_count() const { return errors_; }
  bool empty() const { return diags_.empty(); }
  bool contains(std::string_view code) const;

 private:
  std::vector<Diagnostic> diags_;
  std::size_t errors_ = 0;
};

}  // namespace rung
