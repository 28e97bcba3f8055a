// The program fingerprint: the identity of a whole program, its GraphIR and its BlockIR
// (which functions run, in which order, under which loops and conditionals, with which
// effects). It is what `rung build`, `rung run`, `rung hash` and run records print as
// `fingerprint`: the same fingerprint, the same computation.
//
//   fingerprint = SHA3-256("rung/program\0" || graph fingerprint || BlockIR hash)
//
// The graph fingerprint alone (docs/graph-ir.md) does not identify a program with control
// flow: its entries live in BlockIR and the graph may have no exports at all.
#pragma once

#include "base/hash.h"
#include "ir/block/block.h"

namespace rung::block {

Hash256 program_fingerprint(const Hash256& graph_fingerprint, const Hash256& blockir_hash);
inline Hash256 program_fingerprint(const Program& p) { return program_fingerprint(p.graph.fingerprint(), p.hash()); }

}  // namespace rung::block
