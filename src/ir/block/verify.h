// The BlockIR verifier: what the interpreter relies on. Codes B0001..B0009:
//   B0001 a slot id is out of range          B0005 if/while conditions are bool scalars
//   B0002 a compute names a missing region   B0006 a call names a missing function, or
//   B0003 compute argument/result types           its argument/result types differ
//         differ from the region's           B0007 print/read outside a function with !io
//   B0004 for-loop bounds and variable are   B0008 assign/return types differ
//         i64 scalars                        B0009 duplicate function names
#pragma once

#include "base/diagnostic.h"
#include "ir/block/block.h"

namespace rung::block {
bool verify(const Program& p, DiagnosticSink& diags);
}  // namespace rung::block
