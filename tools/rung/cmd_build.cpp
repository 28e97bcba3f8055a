// `rung build FILE.rung -o FILE.keg`: check and lower a rung source, then write the whole
// program as a .keg file: its GraphIR (every pure function is an export) and its BlockIR
// (every function, loops, conditionals and effects included: the blockir section), so every
// exported entry runs from the file. With -O (implied by --passes, --print-after and
// --stats) the GraphIR goes through the pass pipeline first. With --plan the memory plan of
// the entry function goes in as the optional exec_plan section (`rung show --rung plan`
// reads it back). The work is rung::build's (rung/build.h).
// `rung build --target wasm FILE -o FILE.wasm [--entry E] [--dim N=...]`: one entry as a
// standalone WebAssembly module, with FILE.mjs (loader) and FILE.d.ts beside it; it needs
// clang-14 (rung::build_wasm, rung/wasm.h; docs/wasm-build.md).
#include <rung/build.h>
#include <rung/wasm.h>

#include <cstdio>

#include "command.h"
#include "pipeline_args.h"

namespace rung::cli {
namespace {

struct BuildArgs {
  std::string file;
  PipelineArgs pipeline;
  BuildOptions o;
  std::string target = "keg";
  std::string compiler = "clang++-14";
  std::string budget;
};

int run_build_wasm(const BuildArgs& a, const GlobalOptions& global) {
  WasmBuildOptions w;
  w.output = a.o.output;
  w.entry = a.o.entry;
  w.dims = a.o.dims;
  w.compiler = a.compiler;
  w.budget = a.budget;
  auto built = build_wasm(Source::file(a.file), w);
  if (built)
    std::printf("wrote %s  (%llu bytes; entry %s, arena %llu bytes)  fingerprint %s  exec plan %s\nwrote %s, %s\n",
                built->wasm_path.c_str(), static_cast<unsigned long long>(built->wasm_bytes), built->entry.c_str(),
                static_cast<unsigned long long>(built->arena_bytes), built->fingerprint.c_str(), built->exec_plan.c_str(),
                built->loader_path.c_str(), built->types_path.c_str());
  return report(built.diagnostics(), global);
}

int run_build(BuildArgs a, const GlobalOptions& global) {
  if (a.target == "wasm") return run_build_wasm(a, global);
  const PipelineArgs& p = a.pipeline;
  a.o.optimize = a.o.optimize || !p.passes.empty() || !p.print_after.empty() || p.stats;
  a.o.pipeline = pipeline_of(p);
  auto built = build(Source::file(a.file), a.o);
  // `fingerprint` is the program's (graph and BlockIR): what `rung run` and `rung hash` print.
  if (built) {
    std::string plan_line;
    if (const auto& ep = built->exec_plan)
      plan_line = "\nexec plan " + ep->hash + " (entry " + ep->entry + ", device " + ep->device + ", stored in the .keg)";
    std::printf("wrote %s  fingerprint %s  graph %s  blockir %s%s\n", built->path.c_str(), built->fingerprint.c_str(),
                built->graph_fingerprint.c_str(), built->blockir.c_str(), plan_line.c_str());
  }
  return report(built.diagnostics(), global);
}

RUNG_COMMAND("build", "Check a .rung source and write the program as a .keg file (or one entry as a wasm module: --target wasm)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<BuildArgs>();
               sub.add_option("FILE", a->file, "the .rung source")->required();
               sub.add_option("-o,--output", a->o.output, "the .keg file to write (default: FILE with .keg)");
               sub.add_flag("-O,--optimize", a->o.optimize, "run the pass pipeline (default pipeline unless --passes)");
               sub.add_option("--passes", a->pipeline.passes, "comma-separated pass names (implies -O)");
               sub.add_option("--print-after", a->pipeline.print_after, "print the IR after these passes, or all (implies -O)");
               sub.add_flag("--stats", a->pipeline.stats, "per-pass statistics: runs, changes, nodes added/removed, time (implies -O)");
               sub.add_flag("--plan", a->o.plan, "store the ExecPlan of the entry in the .keg (optional section exec_plan)");
               sub.add_option("--device", a->o.device, "with --plan: cpu | cuda | webgpu")->check(CLI::IsMember({"cpu", "cuda", "webgpu"}))->capture_default_str();
               sub.add_option("--entry", a->o.entry, "with --plan or --target wasm: the function (default: the only exported one)");
               sub.add_option("--dim", a->o.dims, "with --plan or --target wasm: a symbolic dim's extent, NAME=EXTENT (repeatable)");
               sub.add_option("--target", a->target,
                              "keg: the whole program as a .keg file; wasm: the entry as a standalone module FILE.wasm with "
                              "FILE.mjs and FILE.d.ts (needs clang-14 and wasm-ld; every symbolic dim bound)")
                   ->check(CLI::IsMember({"keg", "wasm"}))->capture_default_str();
               sub.add_option("--cc", a->compiler, "with --target wasm: the clang 14 that compiles the module")->capture_default_str();
               sub.add_option("--budget", a->budget, "with --target wasm: the most tensor memory the module may hold (64MiB, bytes)");
               // Options of the .keg build that a wasm module has no use for are refused, not ignored.
               sub.parse_complete_callback([a, &sub] {
                 if (a->target != "wasm") {
                   for (const char* name : {"--cc", "--budget"})
                     if (sub.count(name) > 0) throw CLI::ValidationError(std::string(name) + " applies to --target wasm only");
                   return;
                 }
                 for (const char* name : {"--optimize", "--passes", "--print-after", "--stats", "--plan", "--device"})
                   if (sub.count(name) > 0)
                     throw CLI::ValidationError(std::string(name) + " does not apply to --target wasm (the module is made from the "
                                                "entry's ExecPlan of the program as lowered)");
               });
               return [a, &global] { return run_build(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
