// One op on the reference kernels, the oracle every backend is judged against (`rung eval`):
// operands written as tensor literals or read from .npy files, attributes as NAME=VALUE
// against the op's declaration, and optionally a comparison of the first result with an
// expected tensor under a tolerance class. Bad input is a diagnostic with a caret.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/tensor.h"

namespace rung {

struct EvalOptions {
  std::string op;  // a registry op (N0010 for another name)
  // One per operand, in order: [[1, 2], [3, 4]], i64:[1, 2], f16:[nan, -0], f32[2, 3]:0.5,
  // i32[4]:iota, or a .npy path (C0201 when unreadable).
  std::vector<std::string> inputs;
  std::vector<std::string> attributes;  // NAME=VALUE: axes=[0,1], to=f16, keepdims=true (C0202)
  std::string tier = "debug";           // debug refuses a non-IEEE floating-point environment
  std::string expect;                   // compare the first result with this tensor (same forms)
  std::string tolerance_class = "exact";  // of that comparison (C0204 for an unknown tier or class)
};

struct EvalVerdict {
  bool pass = false;
  std::string summary;  // one line
  std::string json;     // every figure of the comparison
};

struct EvalOutput {
  std::string name;  // the op's result name
  Tensor tensor;
};

struct EvalResult {
  std::string op, tier;
  std::vector<Tensor> inputs;
  std::map<std::string, std::string> attributes;  // as given, each value in its declared kind
  std::vector<EvalOutput> outputs;
  std::optional<EvalVerdict> verdict;  // with EvalOptions::expect
};

RUNG_API Result<EvalResult> eval(const EvalOptions& options);

// A tensor for people: its type and values, at most `max_elements` of them.
RUNG_API std::string tensor_text(const Tensor& t, std::uint64_t max_elements = 64);
// Element `index`'s bit pattern, hex: "0x3f800000".
RUNG_API std::string element_bits(const Tensor& t, std::uint64_t index);
// What `rung eval --json` prints (two-space indent): the op, tier, attributes, inputs and
// outputs with their values (NaN and infinities as strings; quantized blocks as their
// storage), each element's bits with `bits`, and the verdict.
RUNG_API std::string eval_json(const EvalResult& result, bool bits);

}  // namespace rung
