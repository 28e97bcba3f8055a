// `rung show --rung block|graph|plan FILE`: the program a source (or .keg, or workflow)
// lowers to, as BlockIR text or as GraphIR regions, or its ExecPlan: the one stored in a
// .keg file (`rung build --plan`), its hash verified, else one planned now.
// `--rung kernel --backend webgpu FILE|OP`: the generated WGSL of every op node of FILE
// (static shapes), or of one OP for `--type`s. The text is rung::show's (rung/inspect.h).
// `--rung kernel --backend wasm FILE [--entry E] [--dim N=...]`: the C++ that
// `rung build --target wasm` compiles (rung::wasm_module_source, rung/wasm.h).
#include <rung/inspect.h>
#include <rung/wasm.h>

#include <cstdio>

#include "command.h"

namespace rung::cli {
namespace {

int run_show(const std::string& file, const ShowOptions& options, const WasmBuildOptions& wasm, const GlobalOptions& global) {
  auto text = options.ir == "kernel" && options.backend == "wasm" ? rung::wasm_module_source(Source::file(file), wasm)
                                                                   : rung::show(Source::file(file), options);
  if (text) std::fwrite(text->data(), 1, text->size(), stdout);
  return report(text.diagnostics(), global);
}

RUNG_COMMAND("show", "Print the BlockIR or GraphIR a program lowers to",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto o = std::make_shared<ShowOptions>();
               sub.add_option("FILE", *file, "a .rung source, .keg file or workflow .json (or an op name with --rung kernel)")->required();
               sub.add_option("--rung", o->ir, "which IR: block | graph | plan | kernel")->check(CLI::IsMember({"block", "graph", "plan", "kernel"}))->capture_default_str();
               sub.add_option("--backend", o->backend, "with --rung kernel: whose kernels (webgpu, or wasm: the module's C++)");
               sub.add_option("--type", o->types, "with --rung kernel OP: an operand type such as f32[4,8] (repeat per operand)");
               auto w = std::make_shared<WasmBuildOptions>();
               sub.add_option("--entry", w->entry, "with --backend wasm: the function (default: the only exported one)");
               sub.add_option("--dim", w->dims, "with --backend wasm: a symbolic dim's extent, NAME=EXTENT (repeatable)");
               return [file, o, w, &global] { return run_show(*file, *o, *w, global); };
             });

}  // namespace
}  // namespace rung::cli
