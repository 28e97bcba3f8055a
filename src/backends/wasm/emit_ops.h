// One dispatch of an ExecPlan as C++ for a generated wasm module: a call into the kernels of
// backends/wasm/kernels/ with the operands' arena offsets and shapes as constants. An op (or
// dtype) without a wasm kernel is reported by name (T0002), never run some other way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph/graph.h"

namespace rung::wasm {

// A tensor as the module holds it: at `offset` in the arena, row-major.
struct ArenaTensor {
  std::uint64_t offset = 0;
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes = 0;
};

// Where generated code goes: `statics` at file scope (constant data, shape tables), `body`
// inside run(). `next_id` names the statics uniquely, in dispatch order (so two builds of
// one program give the same text).
struct CodeSink {
  std::string statics;
  std::string body;
  std::uint32_t next_id = 0;
};

// Appends the call for `node`; on an unsupported op, dtype or attribute returns the reason
// (the caller reports T0002 with it) and appends nothing.
std::optional<std::string> emit_dispatch(const Node& node, const std::vector<ArenaTensor>& ins,
                                         const std::vector<ArenaTensor>& outs, CodeSink& sink);

// The opcodes emit_dispatch has a kernel for, sorted (`rung ops --missing wasm` lists the rest).
const std::vector<std::string>& supported_opcodes();

}  // namespace rung::wasm
