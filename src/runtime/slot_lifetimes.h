// When a BlockIR slot's value is dead: a static last-use analysis (backward liveness over
// the structured body of one function). A slot is dead at a point when no path from there
// reads it before writing it again: a slot read inside a loop is live for the whole loop
// (the back edge), an `if` takes the union of its branches, `ret` reads only its values,
// `break` what follows its loop and `continue` what the loop's next test reads.
//
// The executor (interpreter.cpp) drops a slot's value at the points listed here, and the
// planner (src/plan/planner.cpp) models the same drops from the same analysis, so planned
// and measured peaks agree. Dropping a slot that borrows a parameter (the caller's value)
// frees nothing; the caller still holds it.
#pragma once

#include <map>
#include <vector>

#include "ir/block/block.h"

namespace rung::runtime {

struct SlotDrops {
  std::vector<block::SlotId> at_entry;  // parameters the body never reads
  // After a statement that falls through (a `ret` never does): slots it read or wrote, or
  // that were live into it, that nothing after it reads.
  std::map<const block::Stmt*, std::vector<block::SlotId>> after;
  // On entering a nested body (a loop body each iteration, the branch taken): slots live
  // before it that this body (and what follows it) never reads. A for loop's variable is
  // written before its body is entered.
  std::map<const std::vector<block::Stmt>*, std::vector<block::SlotId>> entering;

  const std::vector<block::SlotId>& after_stmt(const block::Stmt& s) const;
  const std::vector<block::SlotId>& entering_body(const std::vector<block::Stmt>& body) const;
};

// The drops of `f`; pointers refer to `f`'s statements (valid while `f` is).
SlotDrops slot_drops(const block::Function& f);

// Per argument of `s`: whether the executor hands its value over to the region (`s` is a
// `compute`, the slot dies at `s`, is passed once, is not a result of `s` and does not
// borrow a parameter). The region then frees it after its last use inside, not after `s`
// (runtime::HandOver, host_walk.h); the planner models the same.
std::vector<bool> handed_over(const SlotDrops& d, const block::Stmt& s, const std::vector<bool>& borrowed);

}  // namespace rung::runtime
