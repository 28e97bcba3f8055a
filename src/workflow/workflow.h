// Workflow documents: graphs drawn in the studio, saved as JSON (docs/workflow.md has the
// format and docs/workflow.schema.json its JSON Schema), lowered to the same GraphIR and
// BlockIR as rung source. Every problem is a diagnostic naming the node id and the JSON
// pointer of the offending field:
//   W0001 not JSON              W0006 types do not fit (the op's own checker, with node id)
//   W0002 wrong document shape  W0007 an operand unconnected, or connected twice
//   W0003 unknown op            W0008 duplicate ids / names
//   W0004 dangling edge         W0009 no tier declared (rung never picks one)
//   W0005 a cycle               W0010 a malformed type string
#pragma once

#include <optional>

#include "base/diagnostic.h"
#include "ir/block/block.h"

namespace rung::workflow {

std::optional<block::Program> lower(SourceId source, const SourceMap& sources, DiagnosticSink& diags);

}  // namespace rung::workflow
