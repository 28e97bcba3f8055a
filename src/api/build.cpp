// Writing programs as .keg files (rung/build.h): build a source, optimise a file.
#include "rung/build.h"

#include <filesystem>

#include "api/verbs.h"
#include "base/file_io.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ir/graph/keg_format.h"
#include "plan/exec_plan.h"
#include "plan/exec_plan_codec.h"
#include "plan/tiling.h"

namespace rung {

namespace {

// The exec_plan section for the program as lowered (L-diagnostics when it cannot be planned).
std::optional<KegAttachment> plan_section(const BuildOptions& a, const block::Program& program, Built::Plan& info,
                                          DiagnosticSink& diags) {
  plan::PlanOptions o;
  auto device = api::plan_device(a.device, diags);
  if (!device) return std::nullopt;
  o.device = *device;
  o.entry = a.entry;
  if (o.device == plan::Device::webgpu) o.binding_limit = plan::kWebGpuBindingLimit;
  api::bind_dims(a.dims, o, diags);
  if (diags.has_errors()) return std::nullopt;
  auto mp = plan::plan_program(program, o, diags);
  if (!mp) return std::nullopt;
  info = {plan::exec_plan_hash(*mp).hex(), mp->entry, a.device};
  return KegAttachment{static_cast<std::uint32_t>(keg::SectionKind::exec_plan), plan::encode_exec_plan(*mp, program.hash()), 0};
}

}  // namespace

Result<Built> build(const Source& src, const BuildOptions& a) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  auto fail = [&] { return Result<Built>(api::diagnostics_of(diags, sources)); };
  auto program = api::lower_rung(src, *sources, diags);
  if (!program) return fail();
  std::string out = a.output.empty() ? std::filesystem::path(src.name()).replace_extension(".keg").string() : a.output;
  std::vector<KegAttachment> sections;
  Built built;
  if (a.plan && a.optimize) {
    diags.error("L0009", "--plan cannot be combined with -O/--passes: the plan is made for the program as lowered, and the "
                         "pass pipeline changes the graph it would be stored with");
    return fail();
  }
  if (a.plan) {
    Built::Plan info;
    auto section = plan_section(a, *program, info, diags);
    if (!section) return fail();
    sections.push_back(std::move(*section));
    built.exec_plan = std::move(info);
  }
  if (a.optimize && !api::run_pipeline(*program, a.pipeline, diags)) return fail();
  auto bytes = block::write_program_keg(*program, sections, diags);
  if (!bytes || !write_file_atomic(out, *bytes, diags)) return fail();
  built.path = out;
  built.fingerprint = block::program_fingerprint(*program).hex();
  built.graph_fingerprint = program->graph.fingerprint().hex();
  built.blockir = program->hash().hex();
  return Result<Built>(std::move(built), api::diagnostics_of(diags, sources));
}

Result<Optimized> optimize(const Source& src, const OptimizeOptions& a) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  auto fail = [&] { return Result<Optimized>(api::diagnostics_of(diags, sources)); };
  auto done = [&](Optimized o) { return Result<Optimized>(std::move(o), api::diagnostics_of(diags, sources)); };
  std::optional<KegFile> keg = src.in_memory() ? load_keg_bytes(src.name(), src.content(), *sources, diags)
                                               : load_keg(src.path(), *sources, diags);
  if (!keg) return fail();
  Optimized result;
  if (block::blockir_section(*keg)) {  // a whole program: its BlockIR follows the regions the passes rewrite
    Graph g = std::move(keg->graph);
    auto program = block::read_blockir(*keg, std::move(g), diags);
    if (!program) return fail();
    result.fingerprint_before = block::program_fingerprint(*program).hex();
    if (!api::run_pipeline(*program, a.pipeline, diags)) return fail();
    result.nodes = program->graph.node_count();
    result.fingerprint_after = block::program_fingerprint(*program).hex();
    if (a.output.empty()) return done(std::move(result));
    auto bytes = block::write_program_keg(*program, {}, diags);
    if (!bytes || !write_file_atomic(a.output, *bytes, diags)) return fail();
  } else {
    Graph g = std::move(keg->graph);
    result.fingerprint_before = g.fingerprint().hex();
    if (!api::run_pipeline(g, a.pipeline, diags)) return fail();
    result.nodes = g.node_count();
    result.fingerprint_after = g.fingerprint().hex();
    if (a.output.empty()) return done(std::move(result));
    if (!write_file_atomic(a.output, write_keg(g), diags)) return fail();
  }
  result.written = true;
  result.path = a.output;
  return done(std::move(result));
}

}  // namespace rung
