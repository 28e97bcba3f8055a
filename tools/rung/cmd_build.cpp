// `rung build FILE.rung -o FILE.keg`: check and lower a rung source, then write the whole
// program as a .keg file: its GraphIR (every pure function is an export) and its BlockIR
// (every function, loops, conditionals and effects included: the blockir section), so every
// exported entry runs from the file. With -O (implied by --passes, --print-after and
// --stats) the GraphIR goes through the pass pipeline first. With --plan the memory plan of
// the entry function goes in as the optional exec_plan section (`rung show --rung plan`
// reads it back).
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "command.h"
#include "pass_pipeline_cli.h"
#include "frontend/frontend.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ir/graph/keg_format.h"
#include "plan/exec_plan.h"
#include "plan/exec_plan_codec.h"
#include "plan/size.h"
#include "plan/tiling.h"

namespace rung::cli {
namespace {

struct BuildArgs {
  std::string file, out, passes, print_after;
  bool optimize = false, stats = false;
  bool plan = false;  // --plan, with:
  std::string device = "cpu", entry;
  std::vector<std::string> dims;
};

// The exec_plan section for the program as lowered (L-diagnostics when it cannot be planned).
std::optional<KegAttachment> plan_section(const BuildArgs& a, const block::Program& program, std::string& line, DiagnosticSink& diags) {
  plan::PlanOptions o;
  o.device = *plan::device_from_name(a.device);
  o.entry = a.entry;
  if (o.device == plan::Device::webgpu) o.binding_limit = plan::kWebGpuBindingLimit;
  for (const auto& d : a.dims) {
    auto eq = d.find('=');
    auto v = eq == std::string::npos ? std::nullopt : plan::parse_size(d.substr(eq + 1));
    if (!v || eq == 0) diags.error("L0008", "--dim expects NAME=EXTENT, got `" + d + "`");
    else o.dims[d.substr(0, eq)] = *v;
  }
  if (diags.has_errors()) return std::nullopt;
  auto mp = plan::plan_program(program, o, diags);
  if (!mp) return std::nullopt;
  line = "\nexec plan " + plan::exec_plan_hash(*mp).hex() + " (entry " + mp->entry + ", device " + a.device + ", stored in the .keg)";
  return KegAttachment{static_cast<std::uint32_t>(keg::SectionKind::exec_plan), plan::encode_exec_plan(*mp, program.hash()), 0};
}

int run_build(const BuildArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  auto program = frontend::compile_file(a.file, sources, diags);
  if (!program) return report(diags, sources, global);
  std::string out = a.out.empty() ? std::filesystem::path(a.file).replace_extension(".keg").string() : a.out;
  bool optimize = a.optimize || !a.passes.empty() || !a.print_after.empty() || a.stats;
  std::vector<KegAttachment> sections;
  std::string plan_line;
  if (a.plan && optimize) {
    diags.error("L0009", "--plan cannot be combined with -O/--passes: the plan is made for the program as lowered, and the "
                         "pass pipeline changes the graph it would be stored with");
    return report(diags, sources, global);
  }
  if (a.plan) {
    auto section = plan_section(a, *program, plan_line, diags);
    if (!section) return report(diags, sources, global);
    sections.push_back(std::move(*section));
  }
  if (optimize && !run_pass_pipeline(*program, {a.passes, a.print_after, a.stats}, diags)) return report(diags, sources, global);
  auto bytes = block::write_program_keg(*program, sections, diags);
  // `fingerprint` is the program's (graph and BlockIR): what `rung run` and `rung hash` print.
  if (bytes && write_file_atomic(out, *bytes, diags))
    std::printf("wrote %s  fingerprint %s  graph %s  blockir %s%s\n", out.c_str(), block::program_fingerprint(*program).hex().c_str(),
                program->graph.fingerprint().hex().c_str(), program->hash().hex().c_str(), plan_line.c_str());
  return report(diags, sources, global);
}

RUNG_COMMAND("build", "Check a .rung source and write the program (GraphIR and BlockIR) as a .keg file",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<BuildArgs>();
               sub.add_option("FILE", a->file, "the .rung source")->required();
               sub.add_option("-o,--output", a->out, "the .keg file to write (default: FILE with .keg)");
               sub.add_flag("-O,--optimize", a->optimize, "run the pass pipeline (default pipeline unless --passes)");
               sub.add_option("--passes", a->passes, "comma-separated pass names (implies -O)");
               sub.add_option("--print-after", a->print_after, "print the IR after these passes, or all (implies -O)");
               sub.add_flag("--stats", a->stats, "per-pass statistics: runs, changes, nodes added/removed, time (implies -O)");
               sub.add_flag("--plan", a->plan, "store the ExecPlan of the entry in the .keg (optional section exec_plan)");
               sub.add_option("--device", a->device, "with --plan: cpu | cuda | webgpu")->check(CLI::IsMember({"cpu", "cuda", "webgpu"}))->capture_default_str();
               sub.add_option("--entry", a->entry, "with --plan: the function to plan (default: the only exported one)");
               sub.add_option("--dim", a->dims, "with --plan: a symbolic dim's extent, NAME=EXTENT (repeatable)");
               return [a, &global] { return run_build(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
