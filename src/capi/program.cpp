// Modules, compile options and programs through the C ABI.
#include <cstring>
#include <optional>
#include <utility>

#include "capi/entries.h"
#include "capi/objects.h"

namespace rung::capi {
namespace {

// The module's and the compile's warnings, kept for ProgramWarningsJson.
std::string merged_json(const Diagnostics& a, const Diagnostics& b) {
  Diagnostics all = a;
  all.append(b);
  return all.json();
}

RungStatus* loaded(Result<Module> r, RungModule** out) {
  if (!r.ok()) return status_of(r.diagnostics());
  auto m = std::make_shared<ModuleObj>(ModuleObj{std::move(r).value(), r.diagnostics()});
  *out = issue<RungModule>(std::move(m));
  return nullptr;
}

RungStatus* entry_of(const RungProgram* program, uint64_t entry, std::shared_ptr<ProgramObj>& p, const EntryObj*& e) {
  auto h = lookup<ProgramObj>(program);
  if (!h) return bad_handle(h.why);
  if (entry >= h->entries.size())
    return fail(RUNG_INVALID_ARGUMENT, "M0007",
                "entry " + std::to_string(entry) + " of a program with " + std::to_string(h->entries.size()) + " entries");
  p = h.object;
  e = &p->entries[static_cast<std::size_t>(entry)];
  return nullptr;
}

RungStatus* slot(const std::vector<SlotInfo>& slots, uint64_t i, const char* what, const char** name, const char** type,
                 RungDType* dtype) {
  if (i >= slots.size())
    return fail(RUNG_INVALID_ARGUMENT, "M0007",
                std::string(what) + " " + std::to_string(i) + " of an entry with " + std::to_string(slots.size()));
  const SlotInfo& s = slots[static_cast<std::size_t>(i)];
  if (name) *name = s.name.c_str();
  if (type) *type = s.type.c_str();
  if (dtype) *dtype = static_cast<RungDType>(s.dtype);
  return nullptr;
}

// RUNG_SOURCE_* to the module's source kinds; nullopt for a number that names none.
std::optional<SourceKind> source_kind(int32_t kind) {
  switch (kind) {
    case RUNG_SOURCE_RUNG: return SourceKind::rung;
    case RUNG_SOURCE_KEG: return SourceKind::keg;
    case RUNG_SOURCE_WORKFLOW: return SourceKind::workflow;
    case RUNG_SOURCE_ONNX: return SourceKind::onnx;
    default: return std::nullopt;
  }
}

std::vector<SlotInfo> slots_of(const std::vector<Param>& ps) {
  std::vector<SlotInfo> out;
  for (const Param& p : ps) out.push_back({p.name, p.type, p.dtype});
  return out;
}

}  // namespace

RungStatus* ModuleLoadFile(const char* path, RungModule** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!path) return null_argument("path");
    if (!out) return null_argument("out");
    return loaded(Module::load(Source::file(path)), out);
  });
}

RungStatus* ModuleLoadBytes(const char* name, const void* bytes, uint64_t size, int32_t kind, RungModule** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!name) return null_argument("name");
    if (!bytes && size > 0) return null_argument("bytes");
    if (!out) return null_argument("out");
    std::optional<SourceKind> k = source_kind(kind);
    if (!k)
      return fail(RUNG_INVALID_ARGUMENT, "M0007",
                  "source kind " + std::to_string(kind) + " is none of RUNG_SOURCE_RUNG, _KEG, _WORKFLOW, _ONNX");
    if (size > SIZE_MAX) return fail(RUNG_INVALID_ARGUMENT, "M0007", "more bytes than this machine can address");
    std::span<const std::byte> b(static_cast<const std::byte*>(bytes), static_cast<std::size_t>(size));
    return loaded(Module::load(Source::bytes(name, b, *k)), out);
  });
}

RungStatus* ModuleName(const RungModule* module, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto m = lookup<ModuleObj>(module);
    if (!m) return bad_handle(m.why);
    if (!out) return null_argument("out");
    *out = m->module.name().c_str();
    return nullptr;
  });
}

void ReleaseModule(RungModule* module) noexcept { release<ModuleObj>(module); }

RungStatus* CreateCompileOptions(RungCompileOptions** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!out) return null_argument("out");
    *out = issue<RungCompileOptions>(std::make_shared<CompileOptionsObj>());
    return nullptr;
  });
}

RungStatus* CompileOptionsSetTier(RungCompileOptions* options, const char* tier) noexcept {
  return guard([&]() -> RungStatus* {
    auto o = lookup<CompileOptionsObj>(options);
    if (!o) return bad_handle(o.why);
    if (!tier) return null_argument("tier");
    o->options.tier = tier;
    return nullptr;
  });
}

RungStatus* CompileOptionsSetTolerance(RungCompileOptions* options, const char* tolerance) noexcept {
  return guard([&]() -> RungStatus* {
    auto o = lookup<CompileOptionsObj>(options);
    if (!o) return bad_handle(o.why);
    if (!tolerance) return null_argument("tolerance");
    o->options.tolerance = tolerance;
    return nullptr;
  });
}

void ReleaseCompileOptions(RungCompileOptions* options) noexcept { release<CompileOptionsObj>(options); }

RungStatus* ProgramCompile(const RungModule* module, const RungCompileOptions* options, RungProgram** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto m = lookup<ModuleObj>(module);
    if (!m) return bad_handle(m.why);
    CompileOptions opts;
    if (options) {
      auto o = lookup<CompileOptionsObj>(options);
      if (!o) return bad_handle(o.why);
      opts = o->options;
    }
    if (!out) return null_argument("out");
    auto r = Program::compile(m->module, opts);
    if (!r.ok()) return status_of(r.diagnostics());
    auto p = std::make_shared<ProgramObj>(ProgramObj{std::move(r).value()});
    p->fingerprint = p->program.fingerprint();
    p->tier = p->program.tier();
    p->tolerance = p->program.tolerance();
    p->warnings_json = merged_json(m->warnings, r.diagnostics());
    for (const EntryInfo& e : p->program.entries())
      p->entries.push_back({e.name, slots_of(e.params), slots_of(e.results)});
    *out = issue<RungProgram>(std::move(p));
    return nullptr;
  });
}

#define RUNG_PROGRAM_STRING(NAME, FIELD)                                \
  RungStatus* NAME(const RungProgram* program, const char** out) noexcept { \
    return guard([&]() -> RungStatus* {                                 \
      auto p = lookup<ProgramObj>(program);                             \
      if (!p) return bad_handle(p.why);                                 \
      if (!out) return null_argument("out");                            \
      *out = p->FIELD.c_str();                                          \
      return nullptr;                                                   \
    });                                                                 \
  }
RUNG_PROGRAM_STRING(ProgramFingerprint, fingerprint)
RUNG_PROGRAM_STRING(ProgramTier, tier)
RUNG_PROGRAM_STRING(ProgramTolerance, tolerance)
RUNG_PROGRAM_STRING(ProgramWarningsJson, warnings_json)
#undef RUNG_PROGRAM_STRING

RungStatus* ProgramEntryCount(const RungProgram* program, uint64_t* out) noexcept {
  return guard([&]() -> RungStatus* {
    auto p = lookup<ProgramObj>(program);
    if (!p) return bad_handle(p.why);
    if (!out) return null_argument("out");
    *out = p->entries.size();
    return nullptr;
  });
}

// The entry `entry` of a live program handed to `f`, inside the guard every entry point has.
template <typename F>
RungStatus* with_entry(const RungProgram* program, uint64_t entry, F&& f) noexcept {
  return guard([&]() -> RungStatus* {
    std::shared_ptr<ProgramObj> p;
    const EntryObj* e = nullptr;
    if (RungStatus* s = entry_of(program, entry, p, e)) return s;
    return f(*e);
  });
}

RungStatus* ProgramEntryName(const RungProgram* program, uint64_t entry, const char** out) noexcept {
  return with_entry(program, entry, [&](const EntryObj& e) -> RungStatus* {
    if (!out) return null_argument("out");
    *out = e.name.c_str();
    return nullptr;
  });
}

RungStatus* ProgramEntryParamCount(const RungProgram* program, uint64_t entry, uint64_t* out) noexcept {
  return with_entry(program, entry, [&](const EntryObj& e) -> RungStatus* {
    if (!out) return null_argument("out");
    *out = e.params.size();
    return nullptr;
  });
}

RungStatus* ProgramEntryParam(const RungProgram* program, uint64_t entry, uint64_t param, const char** name,
                              const char** type, RungDType* dtype) noexcept {
  return with_entry(program, entry, [&](const EntryObj& e) -> RungStatus* {
    return slot(e.params, param, "parameter", name, type, dtype);
  });
}

RungStatus* ProgramEntryResultCount(const RungProgram* program, uint64_t entry, uint64_t* out) noexcept {
  return with_entry(program, entry, [&](const EntryObj& e) -> RungStatus* {
    if (!out) return null_argument("out");
    *out = e.results.size();
    return nullptr;
  });
}

RungStatus* ProgramEntryResult(const RungProgram* program, uint64_t entry, uint64_t result, const char** name,
                               const char** type, RungDType* dtype) noexcept {
  return with_entry(program, entry, [&](const EntryObj& e) -> RungStatus* {
    return slot(e.results, result, "result", name, type, dtype);
  });
}

void ReleaseProgram(RungProgram* program) noexcept { release<ProgramObj>(program); }

}  // namespace rung::capi
