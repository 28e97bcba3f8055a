// `rung parse FILE [--tree] [--events]`: show what the parser made of a file (rung::parse,
// rung/inspect.h): the dump on standard output, the syntax errors as diagnostics.
#include <rung/inspect.h>

#include <iostream>

#include "command.h"

namespace rung::cli {
namespace {

int run_parse(const std::string& file, const ParseOptions& options, const GlobalOptions& global) {
  SyntaxDump dump = rung::parse(Source::file(file), options);
  std::cout << dump.text;
  return report(dump.diagnostics, global);
}

RUNG_COMMAND("parse", "Parse a .rung file and print its syntax tree or the parser's event stream",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto o = std::make_shared<ParseOptions>();
               sub.add_option("FILE", *file, "the .rung file (- for standard input)")->required();
               sub.add_flag("--tree", o->tree, "print the lossless syntax tree (the default)");
               sub.add_flag("--events", o->events, "print the parser's Start/Token/Finish/Error events");
               return [file, o, &global] { return run_parse(*file, *o, global); };
             });

}  // namespace
}  // namespace rung::cli
