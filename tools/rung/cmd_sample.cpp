// `rung sample`: write one of the built-in sample graphs as a .keg file (the demo's input;
// rung::write_sample, rung/inspect.h).
#include <rung/inspect.h>

#include <cstdio>

#include "command.h"

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
                 auto w = write_sample(Sample::mlp, a->out);
                 if (w) {
                   std::printf("wrote %s (%llu bytes, %llu nodes, fingerprint %s)\n", w->path.c_str(),
                               static_cast<unsigned long long>(w->bytes), static_cast<unsigned long long>(w->nodes),
                               w->fingerprint.c_str());
                   if (a->print) std::printf("\n%s", w->regions.c_str());
                 }
                 return report(w.diagnostics(), global);
               };
             });

}  // namespace
}  // namespace rung::cli
