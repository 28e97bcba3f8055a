// Status objects: a code for the caller's program to branch on, the diagnostics for people
// and tools. One status is never made by allocating: out of memory, a fixed handle value.
#include <cstring>
#include <utility>

#include "capi/entries.h"
#include "capi/objects.h"

namespace rung::capi {
namespace {

// Slot number kIndexMask is never issued (HandleTable::add stops short of it).
const std::uintptr_t kOutOfMemory = (std::uintptr_t{1} << HandleTable::kIndexBits) | HandleTable::kIndexMask;
const char kOutOfMemoryText[] = "C0004: out of memory";

bool is_oom(const RungStatus* s) { return reinterpret_cast<std::uintptr_t>(s) == kOutOfMemory; }

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// A status handle that does not look up: the text says why, in a buffer that lives as long
// as the thread (the caller never releases it: it was not issued).
const char* invalid_status_text(const std::string& why) {
  thread_local std::string text;
  text = "M0007: " + why;
  return text.c_str();
}

}  // namespace

RungStatusCode code_for(const std::string& c) {
  if (c == "M0006" || c == "M0011" || c == "A0020" || c == "Q0010" || c == "Q0011") return RUNG_REFUSED;
  if (c == "M0008" || c == "M0009" || c == "M0010" || c == "C0015") return RUNG_NOT_AVAILABLE;
  if (c == "M0012") return RUNG_CANCELLED;
  if (c == "C0004") return RUNG_OUT_OF_MEMORY;
  if (starts_with(c, "Z")) return RUNG_INTERNAL;  // Z0001; I is the ONNX importer's (input errors)
  if (starts_with(c, "M")) return RUNG_INVALID_ARGUMENT;
  return RUNG_DIAGNOSTICS;
}

RungStatus* status_of(const Diagnostics& d, RungStatusCode code) {
  auto s = std::make_shared<StatusObj>();
  s->code = code;
  s->diagnostics = d;
  s->message = d.summary();
  if (s->message.empty()) s->message = "Z0001: a failure without diagnostics (a bug in rung)";
  s->json = d.json();
  return issue<RungStatus>(std::move(s));
}

RungStatus* status_of(const Diagnostics& d) {
  std::string first;
  for (const Message& m : d.messages())
    if (m.severity == Severity::Error) {
      first = m.code;
      break;
    }
  return status_of(d, first.empty() ? RUNG_INTERNAL : code_for(first));
}

RungStatus* fail(RungStatusCode code, std::string diag_code, std::string text, std::vector<std::string> notes) {
  return status_of(Diagnostics::error(std::move(diag_code), std::move(text), std::move(notes)), code);
}

RungStatus* out_of_memory() { return reinterpret_cast<RungStatus*>(kOutOfMemory); }

RungStatus* internal(const char* what) noexcept {
  try {
    return fail(RUNG_INTERNAL, "Z0001", std::string("internal error (a bug in rung; please report it): ") + what);
  } catch (...) {
    return out_of_memory();
  }
}

RungStatus* bad_handle(const std::string& why) { return fail(RUNG_INVALID_ARGUMENT, "M0007", why); }

RungStatus* null_argument(const char* what) {
  return fail(RUNG_INVALID_ARGUMENT, "M0007", std::string("`") + what + "` is NULL");
}

// --- the entries ---

RungStatusCode StatusCode(const RungStatus* status) noexcept {
  if (!status) return RUNG_OK;
  if (is_oom(status)) return RUNG_OUT_OF_MEMORY;
  try {
    auto s = lookup<StatusObj>(status);
    return s ? s->code : RUNG_INVALID_ARGUMENT;
  } catch (...) {
    return RUNG_OUT_OF_MEMORY;
  }
}

const char* StatusMessage(const RungStatus* status) noexcept {
  if (!status) return "";
  if (is_oom(status)) return kOutOfMemoryText;
  try {
    auto s = lookup<StatusObj>(status);
    if (!s) return invalid_status_text(s.why);
    return s->message.c_str();  // owned by the status, which the caller holds
  } catch (...) {
    return kOutOfMemoryText;
  }
}

uint64_t StatusDiagnosticCount(const RungStatus* status) noexcept {
  if (!status || is_oom(status)) return 0;
  try {
    auto s = lookup<StatusObj>(status);
    return s ? s->diagnostics.messages().size() : 0;
  } catch (...) {
    return 0;
  }
}

RungStatus* StatusDiagnostic(const RungStatus* status, uint64_t index, const char** code, int32_t* severity,
                             const char** message, const char** file, uint32_t* line, uint32_t* column) noexcept {
  return guard([&]() -> RungStatus* {
    if (!status) return null_argument("status");
    if (is_oom(status)) return fail(RUNG_INVALID_ARGUMENT, "M0007", "the out-of-memory status has no diagnostics");
    auto s = lookup<StatusObj>(status);
    if (!s) return bad_handle(s.why);
    const auto& ms = s->diagnostics.messages();
    if (index >= ms.size())
      return fail(RUNG_INVALID_ARGUMENT, "M0007",
                  "diagnostic " + std::to_string(index) + " of a status with " + std::to_string(ms.size()));
    const Message& m = ms[static_cast<std::size_t>(index)];
    if (code) *code = m.code.c_str();
    if (severity)
      *severity = m.severity == Severity::Error ? RUNG_SEVERITY_ERROR
                  : m.severity == Severity::Warning ? RUNG_SEVERITY_WARNING : RUNG_SEVERITY_NOTE;
    if (message) *message = m.text.c_str();
    if (file) *file = m.location ? m.location->file.c_str() : "";
    if (line) *line = m.location ? m.location->line : 0;
    if (column) *column = m.location ? m.location->column : 0;
    return nullptr;
  });
}

const char* StatusDiagnosticsJson(const RungStatus* status) noexcept {
  if (!status || is_oom(status)) return "[]";
  try {
    auto s = lookup<StatusObj>(status);
    return s ? s->json.c_str() : "[]";
  } catch (...) {
    return "[]";
  }
}

void ReleaseStatus(RungStatus* status) noexcept {
  if (is_oom(status)) return;
  release<StatusObj>(status);
}

}  // namespace rung::capi
