// `rung build FILE.rung -o FILE.keg`: check and lower a rung source, then write its GraphIR
// (every pure function is an export) as a .keg file.
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "command.h"
#include "frontend/frontend.h"
#include "ir/graph/keg.h"

namespace rung::cli {
namespace {

int run_build(const std::string& file, std::string out, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  auto program = frontend::compile_file(file, sources, diags);
  if (!program) return report(diags, sources, global);
  if (out.empty()) out = std::filesystem::path(file).replace_extension(".keg").string();
  if (write_file_atomic(out, write_keg(program->graph), diags))
    std::printf("wrote %s  fingerprint %s  blockir %s\n", out.c_str(), program->graph.fingerprint().hex().c_str(),
                program->hash().hex().c_str());
  return report(diags, sources, global);
}

RUNG_COMMAND("build", "Check a .rung source and write its GraphIR as a .keg file",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto out = std::make_shared<std::string>();
               sub.add_option("FILE", *file, "the .rung source")->required();
               sub.add_option("-o,--output", *out, "the .keg file to write (default: FILE with .keg)");
               return [file, out, &global] { return run_build(*file, *out, global); };
             });

}  // namespace
}  // namespace rung::cli
