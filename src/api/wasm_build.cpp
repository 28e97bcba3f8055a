// `rung build --target wasm` (rung/wasm.h): load, plan the entry for the host, lower the plan
// to C++ (src/backends/wasm), compile it, append the `rung` section, write the three files.
#include "rung/wasm.h"

#include <filesystem>

#include "api/verbs.h"
#include "backends/wasm/lower_entry.h"
#include "backends/wasm/module_files.h"
#include "backends/wasm/toolchain.h"
#include "base/file_io.h"
#include "ir/block/fingerprint.h"
#include "plan/exec_plan.h"
#include "plan/size.h"

namespace rung {

namespace {

// wasm32 addresses 4 GiB; the module's own data and stack need a little of it.
constexpr std::uint64_t kWasm32ArenaLimit = (std::uint64_t{4} << 30) - (std::uint64_t{16} << 20);

struct Lowered {
  wasm::ModuleSource source;
  std::string entry, fingerprint, exec_plan, tier, tolerance, module;
};

std::optional<Lowered> lower(const Source& src, const WasmBuildOptions& a, DiagnosticSink& diags,
                             std::shared_ptr<const SourceMap>& sources) {
  plan::PlanOptions o;
  o.device = plan::Device::cpu;
  o.entry = a.entry;
  api::bind_dims(a.dims, o, diags);
  if (diags.has_errors()) return std::nullopt;
  api::LoadDeterminism det;
  det.tier = a.tier;
  det.tier_as_fallback = true;
  auto program = api::load_program(src, det, diags, sources);
  if (!program) return std::nullopt;
  const block::Program& p = program->impl().program;
  auto mp = plan::plan_program(p, o, diags);  // L0002 names a dim without an extent
  if (!mp) return std::nullopt;
  auto source = wasm::lower_entry(p, *mp, diags);
  if (!source) return std::nullopt;
  std::uint64_t limit = kWasm32ArenaLimit;
  std::string why = "a wasm32 module addresses at most 4 GiB (less 16 MiB for its code, data and stack)";
  if (!a.budget.empty()) {
    auto b = plan::parse_size(a.budget);
    if (!b) {
      diags.error("L0008", "--budget expects a size such as 64MiB or 1000000, got `" + a.budget + "`");
      return std::nullopt;
    }
    if (*b < limit) {
      limit = *b;
      why = "the budget is " + plan::format_bytes(*b) + " (--budget)";
    }
  }
  if (source->arena_bytes > limit) {
    diags.error("T0006", "entry `" + mp->entry + "` needs " + plan::format_bytes(source->arena_bytes) +
                             " of tensor memory; " + why);
    return std::nullopt;
  }
  Lowered l;
  l.source = std::move(*source);
  l.entry = mp->entry;
  l.fingerprint = block::program_fingerprint(p).hex();
  l.exec_plan = plan::exec_plan_hash(*mp).hex();
  l.tier = p.tier_of(*p.find(mp->entry));
  l.tolerance = p.determinism.tolerance;
  l.module = p.module;
  return l;
}

}  // namespace

Result<std::string> wasm_module_source(const Source& src, const WasmBuildOptions& a) {
  DiagnosticSink diags;
  std::shared_ptr<const SourceMap> sources;
  auto l = lower(src, a, diags, sources);
  if (!sources) sources = std::make_shared<const SourceMap>();
  if (!l) return Result<std::string>(api::diagnostics_of(diags, sources));
  return Result<std::string>(std::move(l->source.cpp), api::diagnostics_of(diags, sources));
}

Result<WasmBuilt> build_wasm(const Source& src, const WasmBuildOptions& a) {
  DiagnosticSink diags;
  std::shared_ptr<const SourceMap> sources;
  auto fail = [&] {
    if (!sources) sources = std::make_shared<const SourceMap>();
    return Result<WasmBuilt>(api::diagnostics_of(diags, sources));
  };
  auto l = lower(src, a, diags, sources);
  if (!l) return fail();
  auto compiled = wasm::compile_module(a.compiler, l->source.cpp, diags);
  if (!compiled) return fail();
  nlohmann::json section = {{"abi", wasm::kAbiVersion},
                            {"module", l->module},
                            {"entry", l->entry},
                            {"fingerprint", l->fingerprint},
                            {"exec_plan", l->exec_plan},
                            {"tier", l->tier},
                            {"tolerance", l->tolerance},
                            {"inputs", wasm::ports_json(l->source.inputs)},
                            {"outputs", wasm::ports_json(l->source.outputs)},
                            {"arena_bytes", l->source.arena_bytes},
                            {"compiler", compiled->compiler},
                            {"flags", wasm::compile_flags()}};
  std::string bytes = wasm::append_custom_section(std::move(compiled->wasm), "rung", section.dump());
  namespace fs = std::filesystem;
  fs::path out = a.output.empty() ? fs::path(src.name()).replace_extension(".wasm") : fs::path(a.output);
  fs::path mjs = fs::path(out).replace_extension(".mjs"), dts = fs::path(out).replace_extension(".d.ts");
  auto write = [&](const fs::path& path, const std::string& text) {
    return write_file_atomic(path.string(), {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, diags);
  };
  if (!write(out, bytes) || !write(mjs, wasm::loader_mjs(out.filename().string(), section)) ||
      !write(dts, wasm::loader_dts(l->source)))
    return fail();
  WasmBuilt b;
  b.wasm_path = out.string();
  b.loader_path = mjs.string();
  b.types_path = dts.string();
  b.wasm_bytes = bytes.size();
  b.arena_bytes = l->source.arena_bytes;
  b.entry = l->entry;
  b.fingerprint = l->fingerprint;
  b.exec_plan = l->exec_plan;
  b.compiler = compiled->compiler;
  if (!sources) sources = std::make_shared<const SourceMap>();
  return Result<WasmBuilt>(std::move(b), api::diagnostics_of(diags, sources));
}

std::vector<std::string> wasm_supported_ops() { return wasm::supported_opcodes(); }

}  // namespace rung
