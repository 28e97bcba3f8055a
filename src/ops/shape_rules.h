// Shape rules shared by the families: broadcasting, axis normalisation, reductions and
// matmul shapes. Every rule works on symbolic dims: a symbol matches only the same symbol
// (or a static 1, which broadcasts); anything that cannot be decided statically is an
// error naming the dims, never a guess.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/op_def.h"

namespace rung::ops {

// numpy broadcasting over any number of shapes (aligned at the trailing dim).
std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes, std::string& error);
// Two dims are equal when both are static with one extent, or the same symbol.
bool same_dim(const Dim& a, const Dim& b);

// Normalises possibly negative axes against `rank`; rejects out-of-range and repeated axes.
// An empty list with `empty_means_all` selects every axis.
std::optional<std::vector<std::size_t>> normalize_axes(std::span<const std::int64_t> axes, std::size_t rank,
                                                       bool empty_means_all, std::string& error);
std::optional<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank, std::string& error);

// Ready-made rules.
ShapeResult rule_broadcast(const ShapeArgs& a);  // one result: the broadcast of all inputs
ShapeResult rule_same_as_first(const ShapeArgs& a);
// Reduction over attribute `axes` (ints, empty = all) with `keepdims` (bool).
ShapeResult rule_reduce_axes(const ShapeArgs& a);
// Reduction over the single attribute `axis` (int) with `keepdims` (bool).
ShapeResult rule_reduce_axis(const ShapeArgs& a);

}  // namespace rung::ops
