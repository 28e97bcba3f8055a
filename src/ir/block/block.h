// BlockIR: the typed program whose unit is the block — which blocks run, in which order,
// under which control flow (loops over steps, conditionals, calls, I/O, logging). Numeric
// work is not here: a `compute` statement runs a GraphIR region, named by its hash, that
// lives in the program's Graph. BlockIR is what the front end (rung source or a workflow
// document) produces and what the runtime interprets.
//
// Values live in slots: the named, typed variables of a function. Every slot holds a
// tensor (scalars are rank-0 tensors; a loop counter is an i64 scalar); structs and
// tuples are flattened into several slots by the front end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/source.h"
#include "ir/graph/graph.h"

namespace rung::block {

using SlotId = std::uint32_t;

struct Slot {
  std::string name;  // the source name, or a generated one (`%t3`)
  TensorType type;
  bool is_mutable = false;
};

enum class StmtKind : std::uint8_t {
  compute = 1,  // results = region(args)            (a GraphIR region, by hash)
  call = 2,     // results = callee(args)            (a BlockIR function, by name)
  for_range = 3,  // for var in lo..hi { body }      (i64 scalars; hi exclusive)
  while_loop = 4, // loop { cond_body; if !cond break; body }
  if_else = 5,    // if cond { body } else { else_body }
  assign = 6,     // results[0] = args[0]            (copy; `x = ...` on a `let mut`)
  print = 7,      // print items                     (effect io)
  read = 8,       // results[0] = read(kind, path)   (effect io; kinds: csv, npy)
  ret = 9,        // return args
  break_loop = 10,     // leave the innermost for/while loop
  continue_loop = 11,  // start the innermost loop's next iteration
};
std::string_view stmt_kind_name(StmtKind k);

struct PrintItem {
  std::string text;                 // printed as is when slot is empty
  std::optional<SlotId> slot;       // or the value of a slot (scalars as numbers)
};

struct Stmt {
  StmtKind kind = StmtKind::assign;
  std::vector<SlotId> args;     // compute/call/assign/ret inputs; for: {lo, hi}; if/while: {cond}
  std::vector<SlotId> results;  // compute/call/assign/read outputs; for: {var}
  Hash256 region;               // compute
  std::string callee;           // call
  std::string text;             // read: path;   (kind in `callee`: "csv" | "npy")
  std::vector<PrintItem> items; // print
  std::vector<Stmt> body;       // for/while/if
  std::vector<Stmt> else_body;  // if
  std::vector<Stmt> cond_body;  // while: statements computing args[0] before each test
  Span span;                    // where in the source it came from (not hashed)
};

struct Function {
  std::string name;
  std::vector<Slot> slots;
  std::vector<SlotId> params;
  std::vector<SlotId> results;
  std::set<std::string> effects;  // "io", "rand", "alloc"
  bool exported = false;
  std::string tier;  // the tier its body declares (a run entering here runs at it); empty: the program's
  std::vector<Stmt> body;
};

// Determinism declarations as the program states them (the front end resolves defaults
// and conflicts; an absent tier never reaches BlockIR).
struct Determinism {
  std::string tier;       // debug | prod | fast
  std::string tolerance;  // exact | tight | default | loose
};

struct Program {
  std::string module;
  Determinism determinism;
  std::vector<Function> functions;  // sorted by name when hashed
  Graph graph;                      // every region a compute statement names
  // Debug info (not hashed): the source span of each op node, by node hash, where the front
  // end made it; run-time errors underline the op (runtime::ScopedNodeSpans).
  std::map<Hash256, Span> node_spans;

  const Function* find(std::string_view name) const;
  // The tier a run entering at `entry` has: the entry's own declaration, else the program's.
  const std::string& tier_of(const Function& entry) const { return entry.tier.empty() ? determinism.tier : entry.tier; }
  // SHA3-256 over the canonical encoding of module, determinism, functions (sorted by
  // name, statements in order, slot types) and the hashes of the regions they name.
  Hash256 hash() const;
};

}  // namespace rung::block
