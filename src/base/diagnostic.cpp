#include "base/diagnostic.h"

namespace rung {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "?";
}

const Label* Diagnostic::primary_label() const {
  for (const auto& l : labels)
    if (l.primary) return &l;
  return labels.empty() ? nullptr : &labels.front();
}

Diagnostic& DiagnosticSink::add(Severity s, std::string code, std::string message) {
  if (s == Severity::Error) ++errors_;
  auto& d = diags_.emplace_back();
  d.code = std::move(code);
  d.severity = s;
  d.message = std::move(message);
  return d;
}

void DiagnosticSink::append(const DiagnosticSink& other) {
  for (const auto& d : other.diags_) {
    diags_.push_back(d);
    if (d.severity == Severity::Error) ++errors_;
  }
}

bool DiagnosticSink::contains(std::string_view code) const {
  for (const auto& d : diags_)
    if (d.code == code) return true;
  return false;
}

}  // namespace rung
