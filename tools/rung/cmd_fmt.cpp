// `rung fmt FILE... [--check] [--write]`: the canonical layout of .rung files (rung::format,
// rung/inspect.h). Without a flag the formatted text goes to standard output.
#include <rung/inspect.h>

#include <iostream>

#include "command.h"

namespace rung::cli {
namespace {

struct FmtArgs {
  std::vector<std::string> files;
  bool check = false;
  bool write = false;
};

int run_fmt(const FmtArgs& a, const GlobalOptions& global) {
  std::vector<Source> sources;
  for (const std::string& file : a.files) sources.push_back(Source::file(file));
  Formatted out = rung::format(sources, a.check ? FormatMode::check : a.write ? FormatMode::write : FormatMode::print);
  std::cout << out.text;
  return report(out.diagnostics, global);
}

RUNG_COMMAND("fmt", "Format .rung files in the canonical style (stdout, --check or --write)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<FmtArgs>();
               sub.add_option("FILE", a->files, "the .rung files (- for standard input)")->required();
               auto* check = sub.add_flag("--check", a->check, "report files that are not formatted; change nothing");
               sub.add_flag("--write", a->write, "rewrite files in place (atomically)")->excludes(check);
               return [a, &global] { return run_fmt(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
