#include "frontend/frontend.h"

#include "frontend/lowerer.h"
#include "syntax/load.h"
#include "syntax/parse.h"

namespace rung::frontend {

std::optional<block::Program> lower(const syntax::SyntaxTree& tree, SourceMap& sources, SourceId source,
                                    DiagnosticSink& diags) {
  auto file = ast::cast<ast::SourceFile>(tree.root());
  if (!file) return std::nullopt;
  return Lowerer(file, source, sources, diags).run();
}

void check(const syntax::SyntaxTree& tree, SourceMap& sources, SourceId source, DiagnosticSink& diags) {
  (void)lower(tree, sources, source, diags);
}

std::optional<block::Program> compile_file(const std::string& path, SourceMap& sources, DiagnosticSink& diags) {
  auto id = syntax::load_source(path, sources, diags);
  if (!id) return std::nullopt;
  syntax::SyntaxTree tree = syntax::check_syntax(sources, *id, diags);
  if (diags.has_errors()) return std::nullopt;
  return lower(tree, sources, *id, diags);
}

}  // namespace rung::frontend
