// `rung parse FILE [--tree] [--events]`: show what the parser made of a file.
#include <cstdio>
#include <iostream>

#include "command.h"
#include "syntax/dump.h"
#include "syntax/load.h"
#include "syntax/parse.h"

namespace rung::cli {
namespace {

struct ParseArgs {
  std::string file;
  bool tree = false;
  bool events = false;
};

int run_parse(const ParseArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  std::optional<SourceId> id = syntax::load_source(a.file, sources, diags);
  if (!id) return report(diags, sources, global);
  std::string_view text = sources.get(*id).text();
  if (a.events) {
    syntax::Lexed lexed = syntax::lex(text, *id);
    std::cout << syntax::dump_events(lexed, syntax::parse_events(lexed, *id));
  }
  if (a.tree || !a.events) {
    syntax::Parse parsed = syntax::parse(text, *id);
    std::cout << syntax::dump_tree(parsed.tree);
  }
  syntax::check_syntax(sources, *id, diags);
  return report(diags, sources, global);
}

RUNG_COMMAND("parse", "Parse a .rung file and print its syntax tree or the parser's event stream",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ParseArgs>();
               sub.add_option("FILE", a->file, "the .rung file (- for standard input)")->required();
               sub.add_flag("--tree", a->tree, "print the lossless syntax tree (the default)");
               sub.add_flag("--events", a->events, "print the parser's Start/Token/Finish/Error events");
               return [a, &global] { return run_parse(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
