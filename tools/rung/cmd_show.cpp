// `rung show --rung block|graph|plan FILE`: the program a source (or .keg, or workflow)
// lowers to, as BlockIR text or as GraphIR regions, or its ExecPlan: the one stored in a
// .keg file (`rung build --plan`), its hash verified, else one planned now.
// `--rung kernel --backend webgpu FILE|OP`: the generated WGSL of every op node of FILE
// (static shapes), or of one OP for `--type`s.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "command.h"
#include "ir/block/printer.h"
#include "ir/graph/printer.h"
#include "ir/graph/keg_format.h"
#include "plan/exec_plan.h"
#include "plan/exec_plan_codec.h"
#include "program_loader.h"
#if RUNG_CLI_HAVE_WEBGPU
#include "backends/webgpu/kernel_listing.h"
#include "ops/registry.h"
#endif

namespace rung::cli {
namespace {

int run_show(const std::string& file, const std::string& what, const GlobalOptions& global, const std::string& backend,
             [[maybe_unused]] const std::vector<std::string>& types) {  // WebGPU listings only
  SourceMap sources;
  DiagnosticSink diags;
  if (what == "kernel") {
#if RUNG_CLI_HAVE_WEBGPU
    if (backend == "webgpu") {
      std::string text;
      if (ops::op_registry().find(file) && !std::filesystem::exists(file)) {
        webgpu::op_kernel_text(file, types, text, diags);
      } else {
        LoadOptions lo;
        lo.fallback_tier = "debug";
        auto program = load_program(file, lo, sources, diags);
        if (program) webgpu::graph_kernel_text(program->graph, text, diags);
      }
      std::fwrite(text.data(), 1, text.size(), stdout);
      return report(diags, sources, global);
    }
#endif
    diags.error("C0017", "`--rung kernel` needs `--backend webgpu` (the backend whose kernels are generated source in this build), got `" +
                             backend + "`");
    return report(diags, sources, global);
  }
  LoadOptions lo;
  lo.fallback_tier = "debug";  // for .keg files that declare none; showing does not run anything
  std::vector<KegAttachment> sections;
  SourceId keg_source = kNoSource;
  lo.keg_attachments = &sections;
  lo.keg_source = &keg_source;
  auto program = load_program(file, lo, sources, diags);
  if (!program) return report(diags, sources, global);
  std::string text;
  const KegAttachment* stored = nullptr;
  for (const auto& a : sections)
    if (a.kind == static_cast<std::uint32_t>(keg::SectionKind::exec_plan)) stored = &a;
  if (what == "plan" && stored) {  // the plan the file carries; decoding verifies its hash
    auto sp = plan::decode_exec_plan(stored->payload, stored->payload_offset, keg_source, diags);
    if (!sp) return report(diags, sources, global);
    // A file with its BlockIR names the program the plan must have been made for.
    bool has_blockir = std::any_of(sections.begin(), sections.end(),
                                   [](const KegAttachment& a) { return a.kind == static_cast<std::uint32_t>(keg::SectionKind::blockir); });
    if (has_blockir && sp->program != program->hash()) {
      diags.error("K0025", "section 'exec_plan' was planned for another program than the file's BlockIR")
          .primary(Span{keg_source, static_cast<std::uint32_t>(stored->payload_offset), static_cast<std::uint32_t>(stored->payload_offset + 1)})
          .note("planned from blockir " + sp->program.hex())
          .note("the file's blockir  " + program->hash().hex());
      return report(diags, sources, global);
    }
    text = "stored in     " + file + " (section exec_plan, hash verified; planned from blockir " + sp->program.hex() + ")\n" +
           plan::dispatch_text(sp->plan) + plan::summary_text(sp->plan);
  } else if (what == "plan") {  // the ExecPlan (cpu, symbolic dims need `rung plan --dim`)
    auto mp = plan::plan_program(*program, {}, diags);
    if (!mp) return report(diags, sources, global);
    text = plan::dispatch_text(*mp) + plan::summary_text(*mp);
  } else {
    text = what == "block" ? block::print(*program) : print_regions(program->graph);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return report(diags, sources, global);
}

RUNG_COMMAND("show", "Print the BlockIR or GraphIR a program lowers to",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto what = std::make_shared<std::string>("block");
               auto backend = std::make_shared<std::string>();
               auto types = std::make_shared<std::vector<std::string>>();
               sub.add_option("FILE", *file, "a .rung source, .keg file or workflow .json (or an op name with --rung kernel)")->required();
               sub.add_option("--rung", *what, "which IR: block | graph | plan | kernel")->check(CLI::IsMember({"block", "graph", "plan", "kernel"}))->capture_default_str();
               sub.add_option("--backend", *backend, "with --rung kernel: whose kernels (webgpu)");
               sub.add_option("--type", *types, "with --rung kernel OP: an operand type such as f32[4,8] (repeat per operand)");
               return [file, what, backend, types, &global] { return run_show(*file, *what, global, *backend, *types); };
             });

}  // namespace
}  // namespace rung::cli
