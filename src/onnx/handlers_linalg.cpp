// Det of [..., n, n] for n up to 4 by Laplace expansion along the first row (2 x 2: ad - bc),
// from slices, mul, add and sub. NumPy's reference factors LU; the two agree within the
// suite's tolerance for matrices not close to singular. Larger n waits for a registry det op.
#include <map>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

constexpr std::uint64_t kMaxN = 4;  // 4! = 24 products; beyond, expansion stops being sensible

struct Expansion {
  NodeCtx& c;
  Value x;
  Shape batch;
  std::map<std::pair<std::int64_t, std::int64_t>, V> cache;

  // Element (i, j) of every matrix, shaped as the batch.
  V at(std::int64_t i, std::int64_t j) {
    auto& e = cache[{i, j}];
    if (e) return e;
    auto r = static_cast<std::int64_t>(x.rank());
    V s = c.op("slice", {x}, {{"starts", AttrValue(Ints{i, j})}, {"ends", AttrValue(Ints{i + 1, j + 1})},
                              {"axes", AttrValue(Ints{r - 2, r - 1})}, {"steps", AttrValue(Ints{1, 1})}});
    e = s ? reshape_to(c, *s, batch) : V{};
    return e;
  }

  // The determinant of the minor with rows from `row` on and the columns in `cols`.
  V det(std::int64_t row, const Ints& cols) {
    if (cols.size() == 1) return at(row, cols[0]);
    V acc;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      Ints rest = cols;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
      V minor = det(row + 1, rest);
      V a = at(row, cols[k]);
      V term = a && minor ? c.op("mul", {*a, *minor}) : V{};
      if (!term) return std::nullopt;
      acc = !acc ? term : c.op(k % 2 ? "sub" : "add", {*acc, *term});
      if (!acc) return std::nullopt;
    }
    return acc;
  }
};

bool det(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (x.rank() < 2) return c.fail("I0005", "Det takes [..., n, n], got " + x.type.to_string());
  const Dim &m = x.type.shape[x.rank() - 2], &n = x.type.shape[x.rank() - 1];
  if (!m.is_static() || !n.is_static() || m != n)
    return c.fail("I0005", "Det takes square matrices of static size, got " + x.type.to_string());
  if (n.extent() == 0 || n.extent() > kMaxN)
    return c.fail("I0005", "Det of " + n.to_string() + " x " + n.to_string() + " matrices (rung expands up to 4 x 4)");
  Ints cols;
  for (std::uint64_t j = 0; j < n.extent(); ++j) cols.push_back(static_cast<std::int64_t>(j));
  Expansion e{c, x, Shape(x.type.shape.begin(), x.type.shape.end() - 2), {}};
  return out0(c, e.det(0, cols));
}

}  // namespace

void add_linalg_handlers(std::vector<Handler>& h) {
  h.push_back({"Det", 11, kMaxOpset, det, "slice, mul, add, sub (Laplace expansion, n up to 4)"});
}

}  // namespace rung::onnx_import
