// Turns whatever the user names on the command line into a BlockIR program: a .keg file
// (its exports become functions) today; .rung sources and workflow .json documents join
// here as the front ends land. One place, so run/plan/show all accept the same inputs.
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ir/block/block.h"

namespace rung::cli {

struct LoadOptions {
  std::string tier;       // from --tier; required where the input declares none
  std::string tolerance;  // from --tolerance
};

std::optional<block::Program> load_program(const std::string& path, const LoadOptions& opts, SourceMap& sources,
                                           DiagnosticSink& diags);

}  // namespace rung::cli
