// Determinism declarations: `tier` and `tolerance` at module level (and tier inside a
// function body). Rules: a module with no tier is an error (E2301); unknown names E2302;
// several tiers compose to the strictest (debug > prod > fast), with a warning E2304 when
// they differ; an `override tier` that drops a stricter tier is honoured with a warning
// E2303 naming both.
#pragma once

#include <optional>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "syntax/ast.h"

namespace rung::frontend {

std::optional<block::Determinism> resolve_determinism(const syntax::ast::SourceFile& file, SourceId src,
                                                      DiagnosticSink& diags);
// Checks the tier declarations inside one function body against the module's tier and
// returns the tier the function runs at when it declares one (empty when it declares none).
std::string check_function_tiers(const syntax::ast::FnItem& fn, const block::Determinism& module, SourceId src,
                          DiagnosticSink& diags);

// An imported module's tier declarations compose with the program's: the strictest tier
// applies, and a difference is the warning E2304 naming both.
void compose_imported_tiers(const syntax::ast::SourceFile& imported, SourceId imported_src,
                            const syntax::ast::SourceFile& main, SourceId main_src, block::Determinism& det,
                            DiagnosticSink& diags);

}  // namespace rung::frontend
