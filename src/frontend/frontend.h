// The rung language front end after parsing: names, types and shapes, effects and the
// determinism declarations are checked while the program is lowered, in one walk, to
// BlockIR functions whose numeric statements run GraphIR regions (pure functions become
// regions of their own and are inlined where they are called). Every user mistake is an
// E2xxx diagnostic with underlined spans (docs/semantics-frontend.md lists them).
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "syntax/tree.h"

namespace rung::frontend {

// Checks and lowers a parsed file. Returns the program when there were no errors
// (warnings may have been reported). `source` is the file `tree` was parsed from.
std::optional<block::Program> lower(const syntax::SyntaxTree& tree, SourceMap& sources, SourceId source,
                                    DiagnosticSink& diags);

// Loads, parses and lowers a .rung file: syntax errors (E1xxx) stop before the semantic
// stage. What `rung build/run/show` use.
std::optional<block::Program> compile_file(const std::string& path, SourceMap& sources, DiagnosticSink& diags);

// What `rung check` adds after the syntax stage: the semantic diagnostics of a tree.
// Imported files are added to `sources` as they are loaded.
void check(const syntax::SyntaxTree& tree, SourceMap& sources, SourceId source, DiagnosticSink& diags);

}  // namespace rung::frontend
