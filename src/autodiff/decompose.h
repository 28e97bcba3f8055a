// Composite ops written out in registry ops that have gradient rules. Two users:
//  * gradient rules of composites (layer_norm, attention, ffn_*, rope, ...) back-propagate
//    through the decomposition (rule_by_decomposition), so they reuse the primitive rules;
//  * the binary64 reference path (f64_reference.h) evaluates ops that only exist in
//    f32/f16/bf16 through their decomposition in f64.
// A decomposition computes the op's definition (docs/semantics.md); f16/bf16 operands are
// widened to f32 first, as the kernels compute. Gradcheck compares every decomposition's
// value with the op's own reference kernel, so a wrong decomposition cannot hide.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "autodiff/emitter.h"
#include "ops/attrs.h"

namespace rung::autodiff {

enum class DecomposeFor { gradient, f64_reference };

bool has_decomposition(std::string_view op);
// nullopt (with e.fail(reason)) when this node cannot be decomposed (a symbolic extent the
// decomposition needs to be static, say).
std::optional<std::vector<ValueRef>> decompose(Emitter& e, std::string_view op, const std::vector<ValueRef>& inputs,
                                               const ops::Attrs& attrs, DecomposeFor purpose);

}  // namespace rung::autodiff
