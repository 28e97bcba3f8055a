#include "ops/shape_rules.h"

#include <algorithm>

namespace rung::ops {

bool same_dim(const Dim& a, const Dim& b) { return a == b; }

static bool is_one(const Dim& d) { return d.is_static() && d.extent() == 1; }

std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes, std::string& error) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, Dim::fixed(1));
  for (std::size_t k = 0; k < rank; ++k) {  // k counts from the trailing dim
    Dim& o = out[rank - 1 - k];
    std::size_t from = 0;  // the operand that set `o`
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      if (k >= s.size()) continue;
      const Dim& d = s[s.size() - 1 - k];
      if (is_one(d) || same_dim(o, d)) continue;
      if (is_one(o)) { o = d; from = i; continue; }
      error = "cannot broadcast dim " + o.to_string() + " of operand " + std::to_string(from) + " " +
              shape_to_string(shapes[from]) + " with dim " + d.to_string() + " of operand " + std::to_string(i) +
              " " + shape_to_string(s) + " (dims aligned from the end)";
      if (!o.is_static() || !d.is_static())
        error += "; a symbolic dim broadcasts only with the same symbol or 1";
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank, std::string& error) {
  auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) {
    error = "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
    return std::nullopt;
  }
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

std::optional<std::vector<std::size_t>> normalize_axes(std::span<const std::int64_t> axes, std::size_t rank,
                                                       bool empty_means_all, std::string& error) {
  std::vector<std::size_t> out;
  if (axes.empty() && empty_means_all) {
    for (std::size_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (auto a : axes) {
    auto n = normalize_axis(a, rank, error);
    if (!n) return std::nullopt;
    if (std::find(out.begin(), out.end(), *n) != out.end()) {
      error = "axis " + std::to_string(a) + " is listed twice";
      return std::nullopt;
    }
    out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ShapeResult rule_broadcast(const ShapeArgs& a) {
  std::vector<Shape> shapes;
  for (const auto& t : a.inputs) shapes.push_back(t.shape);
  std::string err;
  auto s = broadcast_shapes(shapes, err);
  if (!s) return ShapeResult::fail(err);
  return ShapeResult::ok({*s});
}

ShapeResult rule_same_as_first(const ShapeArgs& a) { return ShapeResult::ok({a.inputs[0].shape}); }

static Shape reduced(const Shape& in, const std::vector<std::size_t>& axes, bool keepdims) {
  Shape out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    bool r = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!r) out.push_back(in[i]);
    else if (keepdims) out.push_back(Dim::fixed(1));
  }
  return out;
}

ShapeResult rule_reduce_axes(const ShapeArgs& a) {
  std::string err;
  const auto& in = a.inputs[0].shape;
  auto axes = normalize_axes(a.attrs.integers("axes"), in.size(), true, err);
  if (!axes) return ShapeResult::fail(err);
  return ShapeResult::ok({reduced(in, *axes, a.attrs.boolean("keepdims"))});
}

ShapeResult rule_reduce_axis(const ShapeArgs& a) {
  std::string err;
  const auto& in = a.inputs[0].shape;
  if (in.empty()) return ShapeResult::fail("needs an operand of rank >= 1, not a scalar");
  auto axis = normalize_axis(a.attrs.integer("axis"), in.size(), err);
  if (!axis) return ShapeResult::fail(err);
  return ShapeResult::ok({reduced(in, {*axis}, a.attrs.boolean("keepdims"))});
}

}  // namespace rung::ops
