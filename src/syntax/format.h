// The formatter: one canonical layout for rung source, computed from the syntax tree.
// Comments are kept (each stays with the token it was written beside), blank lines
// between items and statements are kept (at most one), and formatting twice changes
// nothing. A file with syntax errors is refused, never rewritten; every result is checked
// to hold the same tokens and comments as the input before it is returned.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "syntax/tree.h"

namespace rung::syntax {

struct FormatOptions {
  int width = 100;  // columns
  int indent = 4;   // spaces per level
};

// Formats source text. On refusal returns nullopt and appends why to `diags`: the syntax
// errors followed by E1900, or E1901 if the formatter's own check failed (a bug).
std::optional<std::string> format_source(std::string_view text, SourceId source, std::vector<Diagnostic>& diags,
                                         const FormatOptions& options = {});

// Formats a tree that has no syntax errors (the caller checked); no self-check.
std::string format_tree(const SyntaxTree& tree, const FormatOptions& options = {});

}  // namespace rung::syntax
