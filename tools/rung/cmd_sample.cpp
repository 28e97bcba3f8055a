// `rung sample`: write one of the built-in sample graphs as a .keg file (the demo's input).
#include <cstdio>

#include "base/file_io.h"
#include "command.h"
#include "ir/graph/keg.h"
#include "ir/graph/printer.h"
#include "ir/graph/samples.h"

namespace rung::cli {
namespace {

struct SampleArgs {
  std::string name = "mlp";
  std::string out;
  bool print = false;
};

RUNG_COMMAND("sample", "Write a built-in sample graph (mlp) to a .keg file",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<SampleArgs>();
               sub.add_option("NAME", a->name, "which sample")->check(CLI::IsMember({"mlp"}))->capture_default_str();
               sub.add_option("-o,--output", a->out, "where to write the .keg file")->required();
               sub.add_flag("--print", a->print, "also print the regions");
               return [a, &global] {
                 Graph g = sample_mlp();
                 SourceMap sources;
                 DiagnosticSink diags;
                 auto bytes = write_keg(g);
                 if (write_file_atomic(a->out, bytes, diags)) {
                   std::printf("wrote %s (%zu bytes, %zu nodes, fingerprint %s)\n", a->out.c_str(), bytes.size(),
                               g.node_count(), g.fingerprint().hex().c_str());
                   if (a->print) std::printf("\n%s", print_regions(g).c_str());
                 }
                 return report(diags, sources, global);
               };
             });

}  // namespace
}  // namespace rung::cli
