// Turns whatever the user names on the command line into a BlockIR program: a .rung source,
// a workflow .json document, or a .keg file (its blockir section when it has one, else its
// exports become functions). One place, so run/plan/show all accept the same inputs.
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "ir/graph/keg.h"

namespace rung::cli {

struct LoadOptions {
  std::string tier;       // from --tier; required where the input declares none
  std::string tolerance;  // from --tolerance
  // Used where the input declares no tier and none was given (a .keg without BlockIR), by
  // commands that run nothing (`rung show`); never overrides a declared tier.
  std::string fallback_tier;
  // .keg files: where to put the optional sections the file carries (the exec plan), and
  // the file's source id (their diagnostics point into it). Null: not wanted.
  std::vector<KegAttachment>* keg_attachments = nullptr;
  SourceId* keg_source = nullptr;
};

std::optional<block::Program> load_program(const std::string& path, const LoadOptions& opts, SourceMap& sources,
                                           DiagnosticSink& diags);

}  // namespace rung::cli
