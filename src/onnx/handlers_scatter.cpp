// Ops that pick or place elements by index: GatherND, Compress, Scatter, ScatterElements,
// ScatterND, MaxUnpool and TopK. Their index operands (indices, condition, MaxUnpool's
// indices) must be known at import (a constant, or a graph input bound at import: I0012
// names it otherwise): the importer resolves them to a flat table, checked against the
// data's static extents (an out-of-range index is I0005 here, never a wrapped read), and the
// run-time part is one gather from the flattened data (exact: a bit copy). A scatter with a
// reduction applies duplicates in index order, as ONNX defines: round k combines each
// target's k-th update (gather, add or mul, where over a constant mask). TopK (k known) ranks
// each element by counting the elements before it (larger, or equal at a lower index; NaN
// above every number, as numpy sorts) and picks the ranks 0..k-1 with a one-hot sum of
// indices and gather_elements: exact, O(n^2) compares along the axis. GatherND also takes
// indices computed at run time (flat rows computed in the graph: gather_nd_runtime), and the
// scatters without reduction too (the last write per element found by a one-hot compare:
// runtime_last_writes); a scatter with add/mul needs its indices at import (I0012).
#include <algorithm>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;
using U64s = std::vector<std::uint64_t>;

constexpr std::uint64_t kMaxTable = 1u << 22;  // entries of an index table built at import (32 MiB of i64)

std::string shape_str(const U64s& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The element count of static extents, nullopt past kMaxTable (a product of 0 stays 0).
std::optional<std::uint64_t> count_of(const U64s& s) {
  std::uint64_t n = 1;
  for (auto d : s) {
    if (d == 0) return 0;
  }
  for (auto d : s) {
    if (n > kMaxTable / d) return std::nullopt;
    n *= d;
  }
  return n;
}

// A static shape whose element count rung expands at import (I0012 for a symbolic dim,
// I0005 past kMaxTable elements).
std::optional<U64s> table_shape(NodeCtx& c, const Value& v, const std::string& what) {
  auto s = c.static_shape(v, what);
  if (!s) return std::nullopt;
  if (!count_of(*s)) {
    c.fail("I0005", what + " " + v.type.to_string() + " has more than 2^22 elements, past what rung expands into an index table at import");
    return std::nullopt;
  }
  return s;
}

// The elements of an index operand known at import (int32/int64, or bool for a condition).
std::optional<Ints> index_values(NodeCtx& c, const Value& v, const std::string& what, bool boolean = false) {
  if (!v.known) {
    c.not_known(v, what);
    return std::nullopt;
  }
  const auto& t = *v.known;
  bool ok = boolean ? t.dtype() == DType::boolean : (t.dtype() == DType::i64 || t.dtype() == DType::i32);
  if (!ok) {
    c.fail("I0005", what + " must be " + (boolean ? "bool" : "int32 or int64") + ", not " + t.type().to_string());
    return std::nullopt;
  }
  if (t.numel() > kMaxTable) {
    c.fail("I0005", what + " has " + std::to_string(t.numel()) + " elements, more than the 2^22 rung expands at import");
    return std::nullopt;
  }
  Ints out(t.numel());
  for (std::uint64_t i = 0; i < t.numel(); ++i) out[i] = t.load_i64(i);
  return out;
}

// An index into an axis of extent `dim`, negative counting from the end (I0005 outside).
std::optional<std::uint64_t> wrap(NodeCtx& c, std::int64_t i, std::uint64_t dim, const std::string& what) {
  auto d = static_cast<std::int64_t>(dim);  // dim <= kMaxTable
  if (i < -d || i >= d) {
    c.fail("I0005", what + " " + std::to_string(i) + " is outside [" + std::to_string(-d) + ", " + std::to_string(d) + ")");
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(i < 0 ? i + d : i);
}

U64s strides_of(const U64s& s) {
  U64s st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

Shape dims_of(const U64s& s) {
  Shape out;
  for (auto d : s) out.push_back(Dim::fixed(d));
  return out;
}

V flat(NodeCtx& c, const Value& v, std::uint64_t n) { return reshape_to(c, v, {Dim::fixed(n)}); }

Value table_const(NodeCtx& c, const U64s& t) {
  Ints v(t.begin(), t.end());
  return c.constant(ops::HostTensor::from_i64({t.size()}, v));
}

// src_flat[table], reshaped to `shape`.
V take(NodeCtx& c, const Value& src_flat, const U64s& table, const Shape& shape) {
  V g = c.op("gather", {src_flat, table_const(c, table)}, {{"axis", AttrValue(std::int64_t{0})}});
  return g ? reshape_to(c, *g, shape) : V{};
}

// data with the writes (target, source element of updates) applied in order: "none" keeps
// the last write per target, "add"/"mul" combine every write in order.
bool apply_writes(NodeCtx& c, const Value& data, const Value& updates, std::uint64_t n_data, std::uint64_t n_upd,
                  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& writes, const std::string& reduction) {
  if (updates.type.dtype != data.type.dtype)
    return c.fail("I0005", "updates " + updates.type.to_string() + " and data " + data.type.to_string() + " differ in type");
  if (writes.empty()) return out0(c, data);
  V df = flat(c, data, n_data), uf = flat(c, updates, n_upd);
  if (!df || !uf) return false;
  if (reduction == "none") {
    U64s table(n_data);
    for (std::uint64_t i = 0; i < n_data; ++i) table[i] = i;
    for (auto [t, s] : writes) table[t] = n_data + s;
    V both = c.op("concat", {*df, *uf}, {{"axis", AttrValue(std::int64_t{0})}});
    return both && out0(c, take(c, *both, table, data.type.shape));
  }
  const char* op = reduction == "add" ? "add" : reduction == "mul" ? "mul" : nullptr;
  if (!op) return c.fail("I0005", "reduction \"" + reduction + "\" is not one of none, add, mul");
  // Round k: each target's k-th write.
  std::vector<std::uint32_t> seen(n_data, 0);
  std::vector<U64s> src;
  std::vector<std::vector<bool>> mask;
  for (auto [t, s] : writes) {
    std::uint32_t k = seen[t]++;
    if (k == src.size()) {
      if ((k + 1) > kMaxTable / n_data)
        return c.fail("I0005", "a target written " + std::to_string(k + 1) + " times over " + std::to_string(n_data) +
                                   " elements is past what rung expands at import (rounds x elements <= 2^22)");
      src.emplace_back(n_data, 0);
      mask.emplace_back(n_data, false);
    }
    src[k][t] = s;
    mask[k][t] = true;
  }
  V y = df;
  for (std::size_t k = 0; k < src.size() && y; ++k) {
    ops::HostTensor m(DType::boolean, {n_data});
    for (std::uint64_t i = 0; i < n_data; ++i) m.store_bool(i, mask[k][i]);
    V g = c.op("gather", {*uf, table_const(c, src[k])}, {{"axis", AttrValue(std::int64_t{0})}});
    V comb = g ? c.op(op, {*y, *g}) : V{};
    y = comb ? c.op("where", {c.constant(std::move(m)), *comb, *y}) : V{};
  }
  return y && out0(c, reshape_to(c, *y, data.type.shape));
}

// Signed indices into an axis of extent `dim` (broadcast), negatives wrapped; `bad` gets
// where the wrapped index is still outside [0, dim).
V wrap_runtime(NodeCtx& c, const Value& i64, const Value& dim, V& bad) {
  V neg = c.op("lt", {i64, c.scalar(DType::i64, 0)});
  V plus = c.op("add", {i64, dim});
  V wrapped = neg && plus ? c.op("where", {*neg, *plus, i64}) : V{};
  V low = wrapped ? c.op("lt", {*wrapped, c.scalar(DType::i64, 0)}) : V{};
  V high = wrapped ? c.op("ge", {*wrapped, dim}) : V{};
  bad = low && high ? c.op("logical_or", {*low, *high}) : V{};
  return bad ? wrapped : V{};
}

// A scatter without reduction whose flat targets `target` (any shape, the updates' element
// order; -1 for an index outside its axis) are computed at run time: per data element the
// last update naming it (a one-hot [n, u] compare and a max over update positions), else the
// data. A -1 anywhere makes the closing gather's row -1, which gather refuses at run time.
bool runtime_last_writes(NodeCtx& c, const Value& data, const Value& upd, const Value& target, std::uint64_t n, std::uint64_t u) {
  if (upd.type.dtype != data.type.dtype)
    return c.fail("I0005", "updates " + upd.type.to_string() + " and data " + data.type.to_string() + " differ in type");
  if (u == 0 || n == 0) return out0(c, data);
  if (n > (std::uint64_t{1} << 24) / u)
    return c.fail("I0005", "a scatter of " + std::to_string(u) + " updates into " + std::to_string(n) +
                               " elements with run-time indices compares u x n > 2^24 pairs (bind the indices at import)");
  auto iota = [&](U64s shape, std::int64_t axis) {
    return c.op("iota", {}, {{"shape", AttrValue(dims_of(shape))}, {"axis", AttrValue(axis)}, {"dtype", AttrValue(DType::i64)}});
  };
  V df = flat(c, data, n), uf = flat(c, upd, u);
  V row = reshape_to(c, target, {Dim::fixed(1), Dim::fixed(u)});
  V it = iota({n, 1}, 0), jp = iota({1, u}, 1);
  V hit = row && it ? c.op("eq", {*it, *row}) : V{};
  V cand = hit && jp ? c.op("where", {*hit, *jp, c.scalar(DType::i64, -1)}) : V{};
  V last = cand ? c.op("max", {*cand}, {{"axes", AttrValue(Ints{1})}, {"keepdims", AttrValue(false)}}) : V{};
  V has = last ? c.op("ge", {*last, c.scalar(DType::i64, 0)}) : V{};
  V pick = last ? c.op("maximum", {*last, c.scalar(DType::i64, 0)}) : V{};
  V g = pick && uf ? c.op("gather", {*uf, *pick}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  V y = g && has && df ? c.op("where", {*has, *g, *df}) : V{};
  // Refuse an out-of-range index at run time: the identity rows, or row -1 when one is bad.
  V tf = flat(c, target, u);
  V low = tf ? c.op("min", {*tf}, {{"axes", AttrValue(Ints{0})}, {"keepdims", AttrValue(false)}}) : V{};
  V any = low ? c.op("lt", {*low, c.scalar(DType::i64, 0)}) : V{};
  V rows = iota({n}, 0);
  V check = any && rows ? c.op("where", {*any, c.scalar(DType::i64, -1), *rows}) : V{};
  V yc = y && check ? c.op("gather", {*y, *check}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  return yc && out0(c, reshape_to(c, *yc, data.type.shape));
}

// The reduction (opset 16); empty after an I0005 for one rung does not map (max and min come at 18).
std::string reduction_attr(NodeCtx& c) {
  std::string r = c.opset() >= 16 ? c.attr_string("reduction", "none") : "none";
  if (r == "none" || r == "add" || r == "mul") return r;
  if (!c.attr_error()) c.fail("I0005", "reduction \"" + r + "\" is not one of none, add, mul");
  return {};
}

// Scatter (9-10) and ScatterElements (11-): y = data; y[p with p_axis = indices[p]] = updates[p].
bool scatter_elements(NodeCtx& c) {
  if (!need(c, 3)) return false;
  const Value &data = c.in(0), &idx = c.in(1), &upd = c.in(2);
  std::string red = reduction_attr(c);
  if (red.empty()) return false;
  if (data.rank() == 0) return c.fail("I0005", "a scatter into a scalar");
  auto ax = c.axis(c.attr_int("axis", 0), data.rank(), "axis");
  if (!ax || c.attr_error()) return false;
  auto ds = table_shape(c, data, "the data");
  auto us = ds ? table_shape(c, upd, "the updates") : std::nullopt;
  auto isv = us ? c.static_shape(idx, "the indices") : std::nullopt;
  if (!isv) return false;
  const U64s& is = *isv;
  if (is != *us) return c.fail("I0005", "indices " + shape_str(is) + " and updates " + shape_str(*us) + " differ in shape");
  if (is.size() != ds->size()) return c.fail("I0005", "indices have rank " + std::to_string(is.size()) + ", data " + data.type.to_string());
  for (std::size_t d = 0; d < is.size(); ++d)
    if (static_cast<std::int64_t>(d) != *ax && is[d] > (*ds)[d])
      return c.fail("I0005", "indices " + shape_str(is) + " exceed data " + data.type.to_string() + " off the axis");
  U64s dst = strides_of(*ds), ist = strides_of(is);
  if (!idx.known && red == "none" && (idx.type.dtype == DType::i64 || idx.type.dtype == DType::i32)) {
    // Run-time indices: t = wrapped * stride(axis) + the element's own offset off the axis.
    auto D = static_cast<std::int64_t>((*ds)[static_cast<std::size_t>(*ax)]);
    Ints off(*count_of(is));
    for (std::uint64_t p = 0; p < off.size(); ++p) {
      std::uint64_t o = 0;
      for (std::size_t d = 0; d < is.size(); ++d)
        if (static_cast<std::int64_t>(d) != *ax) o += ((p / ist[d]) % is[d]) * dst[d];
      off[p] = static_cast<std::int64_t>(o);
    }
    V i64 = cast_to(c, idx, DType::i64);
    V bad, wrapped = i64 ? wrap_runtime(c, *i64, c.scalar(DType::i64, static_cast<double>(D)), bad) : V{};
    V scaled = wrapped ? c.op("mul", {*wrapped, c.scalar(DType::i64, static_cast<double>(dst[static_cast<std::size_t>(*ax)]))}) : V{};
    V t = scaled ? c.op("add", {*scaled, c.constant(ops::HostTensor::from_i64(is, off))}) : V{};
    V safe = t && bad ? c.op("where", {*bad, c.scalar(DType::i64, -1), *t}) : V{};
    return safe && runtime_last_writes(c, data, upd, *safe, *count_of(*ds), *count_of(*us));
  }
  auto iv = index_values(c, idx, red == "none" ? "the indices (input 1)" : "the indices (input 1) of a scatter with reduction " + red);
  if (!iv) return false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> writes;
  for (std::uint64_t p = 0; p < iv->size(); ++p) {
    std::uint64_t t = 0;
    for (std::size_t d = 0; d < is.size(); ++d) {
      std::uint64_t at = (p / ist[d]) % is[d];
      if (static_cast<std::int64_t>(d) == *ax) {
        auto w = wrap(c, (*iv)[p], (*ds)[d], "index");
        if (!w) return false;
        at = *w;
      }
      t += at * dst[d];
    }
    writes.emplace_back(t, p);
  }
  auto nd = count_of(*ds), nu = count_of(*us);
  return apply_writes(c, data, upd, *nd, *nu, writes, red);
}

// ScatterND: y[indices[u]] (a slice of data.shape[m:]) = updates[u].
bool scatter_nd(NodeCtx& c) {
  if (!need(c, 3)) return false;
  const Value &data = c.in(0), &idx = c.in(1), &upd = c.in(2);
  std::string red = reduction_attr(c);
  if (red.empty()) return false;
  if (c.attr_error()) return false;
  auto ds = table_shape(c, data, "the data");
  auto us = ds ? table_shape(c, upd, "the updates") : std::nullopt;
  auto isv = us ? c.static_shape(idx, "the indices") : std::nullopt;
  if (!isv) return false;
  const U64s& is = *isv;
  if (is.empty()) return c.fail("I0005", "the indices must have rank 1 or more");
  std::uint64_t m = is.back();
  if (m < 1 || m > ds->size())
    return c.fail("I0005", "an index tuple of " + std::to_string(m) + " against data " + data.type.to_string());
  U64s want(is.begin(), is.end() - 1);
  want.insert(want.end(), ds->begin() + static_cast<std::ptrdiff_t>(m), ds->end());
  if (want != *us) return c.fail("I0005", "updates " + shape_str(*us) + " must have shape " + shape_str(want));
  U64s dst = strides_of(*ds);
  std::uint64_t slice = m < ds->size() ? dst[m - 1] : 1;
  if (!idx.known && red == "none" && (idx.type.dtype == DType::i64 || idx.type.dtype == DType::i32)) {
    // Run-time indices: each tuple's first element t0 = sum wrapped * stride, then t0 + s per slice element.
    Ints dims(m), strides(m), iota_s(slice);
    for (std::uint64_t k = 0; k < m; ++k) dims[k] = static_cast<std::int64_t>((*ds)[k]), strides[k] = static_cast<std::int64_t>(dst[k]);
    for (std::uint64_t k = 0; k < slice; ++k) iota_s[k] = static_cast<std::int64_t>(k);
    Ints last_axis{static_cast<std::int64_t>(is.size() - 1)};
    V i64 = cast_to(c, idx, DType::i64);
    V bad, wrapped = i64 ? wrap_runtime(c, *i64, c.constant(ops::HostTensor::from_i64({m}, dims)), bad) : V{};
    V scaled = wrapped ? c.op("mul", {*wrapped, c.constant(ops::HostTensor::from_i64({m}, strides))}) : V{};
    V base = scaled ? c.op("sum", {*scaled}, {{"axes", AttrValue(last_axis)}, {"keepdims", AttrValue(true)}}) : V{};  // [..., 1]
    V badi = bad ? cast_to(c, *bad, DType::i64) : V{};
    V nbad = badi ? c.op("sum", {*badi}, {{"axes", AttrValue(last_axis)}, {"keepdims", AttrValue(true)}}) : V{};
    V any = nbad ? c.op("gt", {*nbad, c.scalar(DType::i64, 0)}) : V{};
    V t = base ? c.op("add", {*base, c.constant(ops::HostTensor::from_i64({slice}, iota_s))}) : V{};  // [..., slice]
    V safe = t && any ? c.op("where", {*any, c.scalar(DType::i64, -1), *t}) : V{};
    return safe && runtime_last_writes(c, data, upd, *safe, *count_of(*ds), *count_of(*us));
  }
  auto iv = index_values(c, idx, red == "none" ? "the indices (input 1)" : "the indices (input 1) of a scatter with reduction " + red);
  if (!iv) return false;
  std::uint64_t tuples = iv->size() / m;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> writes;
  for (std::uint64_t u = 0; u < tuples; ++u) {
    std::uint64_t base = 0;
    for (std::uint64_t k = 0; k < m; ++k) {
      auto w = wrap(c, (*iv)[u * m + k], (*ds)[k], "index");
      if (!w) return false;
      base += *w * dst[k];
    }
    for (std::uint64_t s = 0; s < slice; ++s) writes.emplace_back(base + s, u * slice + s);
  }
  return apply_writes(c, data, upd, *count_of(*ds), *count_of(*us), writes, red);
}

// GatherND with indices computed at run time: each tuple's flat row in data viewed as
// [prod(batch dims) * prod(indexed dims), rest...], negative entries wrapped; a tuple with an
// entry outside its dim becomes row -1, which the gather refuses at run time (N0012), so no
// tuple reads a neighbouring row.
bool gather_nd_runtime(NodeCtx& c, const Value& data, const Value& idx, const U64s& ds, const U64s& is, std::size_t b,
                       std::uint64_t m, const U64s& out) {
  const std::size_t q = is.size();
  std::uint64_t batch = 1, block = 1, rows;
  for (std::size_t i = 0; i < b; ++i) batch *= ds[i];
  for (std::size_t i = b; i < b + m; ++i) block *= ds[i];
  rows = batch * block;  // <= the data's count, which is <= 2^22
  Ints dims(m), strides(m);
  for (std::uint64_t k = m; k-- > 0;) {
    dims[k] = static_cast<std::int64_t>(ds[b + k]);
    strides[k] = k + 1 == m ? 1 : strides[k + 1] * dims[k + 1];
  }
  Ints last_axis{static_cast<std::int64_t>(q - 1)};
  Value dv = c.constant(ops::HostTensor::from_i64({m}, dims)), sv = c.constant(ops::HostTensor::from_i64({m}, strides));
  V i64 = cast_to(c, idx, DType::i64);
  V neg = i64 ? c.op("lt", {*i64, c.scalar(DType::i64, 0)}) : V{};
  V plus = i64 ? c.op("add", {*i64, dv}) : V{};
  V wrapped = neg && plus ? c.op("where", {*neg, *plus, *i64}) : V{};
  V low = wrapped ? c.op("lt", {*wrapped, c.scalar(DType::i64, 0)}) : V{};
  V high = wrapped ? c.op("ge", {*wrapped, dv}) : V{};
  V bad = low && high ? c.op("logical_or", {*low, *high}) : V{};
  V badn = bad ? cast_to(c, *bad, DType::i64) : V{};
  V nbad = badn ? c.op("sum", {*badn}, {{"axes", AttrValue(last_axis)}, {"keepdims", AttrValue(false)}}) : V{};
  V any = nbad ? c.op("gt", {*nbad, c.scalar(DType::i64, 0)}) : V{};
  V scaled = wrapped ? c.op("mul", {*wrapped, sv}) : V{};
  V row = scaled ? c.op("sum", {*scaled}, {{"axes", AttrValue(last_axis)}, {"keepdims", AttrValue(false)}}) : V{};
  if (row && b > 0) {  // + the batch's first row: [is[:b], 1, ...] of bflat * block
    U64s bs(is.begin(), is.begin() + static_cast<std::ptrdiff_t>(b));
    bs.resize(q - 1, 1);
    Ints off(batch);
    for (std::uint64_t i = 0; i < batch; ++i) off[i] = static_cast<std::int64_t>(i * block);
    row = c.op("add", {*row, c.constant(ops::HostTensor::from_i64(bs, off))});
  }
  V safe = row && any ? c.op("where", {*any, c.scalar(DType::i64, -1), *row}) : V{};
  Shape view{Dim::fixed(rows)};
  for (std::size_t i = b + m; i < ds.size(); ++i) view.push_back(Dim::fixed(ds[i]));
  V dview = reshape_to(c, data, view);
  V y = dview && safe ? c.op("gather", {*dview, *safe}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  return y && out0(c, reshape_to(c, *y, dims_of(out)));
}

bool gather_nd(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &data = c.in(0), &idx = c.in(1);
  std::int64_t b = c.opset() >= 12 ? c.attr_int("batch_dims", 0) : 0;
  if (c.attr_error()) return false;
  auto ds = table_shape(c, data, "the data");
  auto isv = ds ? c.static_shape(idx, "the indices") : std::nullopt;
  if (!isv) return false;
  const U64s& is = *isv;
  const std::size_t q = is.size(), r = ds->size();
  if (q < 1 || r < 1) return c.fail("I0005", "GatherND needs data and indices of rank 1 or more");
  if (b < 0 || static_cast<std::uint64_t>(b) >= std::min(q, r))
    return c.fail("I0005", "batch_dims " + std::to_string(b) + " must be in [0, min(rank(data), rank(indices)))");
  auto bb = static_cast<std::size_t>(b);
  std::uint64_t m = is.back();
  if (m < 1 || m > r - bb) return c.fail("I0005", "an index tuple of " + std::to_string(m) + " against data " + data.type.to_string() + " with batch_dims " + std::to_string(b));
  for (std::size_t i = 0; i < bb; ++i)
    if (is[i] != (*ds)[i]) return c.fail("I0005", "the batch dims of indices " + shape_str(is) + " and data " + data.type.to_string() + " differ");
  U64s out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds->begin() + static_cast<std::ptrdiff_t>(bb + m), ds->end());
  if (idx.type.dtype != DType::i64 && idx.type.dtype != DType::i32)
    return c.fail("I0005", "the indices must be int32 or int64, not " + idx.type.to_string());
  if (!idx.known) return gather_nd_runtime(c, data, idx, *ds, is, bb, m, out);
  auto iv = index_values(c, idx, "the indices (input 1)");
  if (!iv) return false;
  auto n_out = count_of(out);
  if (!n_out) return c.fail("I0005", "the result " + shape_str(out) + " has more than 2^22 elements, past what rung expands at import");
  U64s dst = strides_of(*ds);
  std::uint64_t slice = bb + m < r ? dst[bb + m - 1] : 1;
  std::uint64_t tuples = m ? iv->size() / m : 0, per_batch = 1;
  for (std::size_t i = bb; i + 1 < q; ++i) per_batch *= is[i];
  std::uint64_t batch_stride = bb ? dst[bb - 1] : 0;
  U64s table;
  table.reserve(*n_out);
  for (std::uint64_t u = 0; u < tuples; ++u) {
    std::uint64_t base = per_batch ? (u / per_batch) * batch_stride : 0;
    for (std::uint64_t k = 0; k < m; ++k) {
      auto w = wrap(c, (*iv)[u * m + k], (*ds)[bb + k], "index");
      if (!w) return false;
      base += *w * dst[bb + k];
    }
    for (std::uint64_t s = 0; s < slice; ++s) table.push_back(base + s);
  }
  V df = flat(c, data, *count_of(*ds));
  return df && out0(c, take(c, *df, table, dims_of(out)));
}

bool compress(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  bool has_axis = c.has_attr("axis");
  std::int64_t a = c.attr_int("axis", 0);
  if (c.attr_error()) return false;
  if (c.in(1).rank() != 1) return c.fail("I0005", "the condition must be 1-D, got " + c.in(1).type.to_string());
  auto cond = index_values(c, c.in(1), "the condition (input 1)", true);
  if (!cond) return false;
  Value src = x;
  std::int64_t ax = 0;
  std::uint64_t extent;
  if (has_axis) {
    auto axv = c.axis(a, x.rank(), "axis");
    if (!axv) return false;
    ax = *axv;
    const Dim& d = x.type.shape[static_cast<std::size_t>(ax)];
    if (!d.is_static()) return c.fail("I0012", "the compressed axis has the symbolic dim " + d.name());
    extent = d.extent();
  } else {
    auto s = table_shape(c, x, "the input (flattened without an axis)");
    if (!s) return false;
    extent = *count_of(*s);
    V f = flat(c, x, extent);
    if (!f) return false;
    src = *f;
  }
  Ints sel;
  for (std::uint64_t i = 0; i < cond->size(); ++i) {
    if (!(*cond)[i]) continue;
    if (i >= extent)
      return c.fail("I0005", "condition[" + std::to_string(i) + "] is true beyond the " + std::to_string(extent) + " elements it selects from");
    sel.push_back(static_cast<std::int64_t>(i));
  }
  Value table = c.constant(ops::HostTensor::from_i64({sel.size()}, sel));
  return out0(c, c.op("gather", {src, table}, {{"axis", AttrValue(ax)}}));
}

// MaxUnpool with indices computed at run time, for windows that tile the input (strides =
// kernel, no pads: MaxPool's windows then cover each default-output element once). Output
// element e takes x at its window w(e) where indices[w(e)] names e (its flat position in the
// default shape), else 0. Unless every index names an element of its own window (inside
// output_shape), the hit count falls short and a closing gather of row -1 refuses the run.
bool max_unpool_runtime(NodeCtx& c, const Value& x, const Value& idx, const U64s& xs, const Ints& ks, const U64s& def,
                        const U64s& out) {
  if (idx.type.shape != x.type.shape)
    return c.fail("I0005", "the indices " + idx.type.to_string() + " must have the input's shape " + x.type.to_string());
  const std::uint64_t n_x = *count_of(xs), n_out = *count_of(out);
  U64s xst = strides_of(xs), dst = strides_of(def), ost = strides_of(out), win(n_out);
  Ints odef(n_out);
  for (std::uint64_t e = 0; e < n_out; ++e) {
    std::uint64_t w = 0, o = 0;
    bool inside = true;
    for (std::size_t d = 0; d < out.size(); ++d) {
      std::uint64_t at = (e / ost[d]) % out[d];
      if (at >= def[d]) inside = false;
      o += at * dst[d];
      w += (d < 2 ? at : at / static_cast<std::uint64_t>(ks[d - 2])) * xst[d];
    }
    win[e] = inside ? w : n_x;  // n_x: the appended zero (and index -1)
    odef[e] = inside ? static_cast<std::int64_t>(o) : -1;
  }
  auto zero1 = [&](DType dt, double v) { return reshape_to(c, c.scalar(dt, v), {Dim::fixed(1)}); };
  V xf = flat(c, x, n_x), if_ = flat(c, idx, n_x);
  V xz0 = zero1(x.type.dtype, 0), iz0 = zero1(DType::i64, -1);
  V xz = xf && xz0 ? c.op("concat", {*xf, *xz0}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  V iz = if_ && iz0 ? c.op("concat", {*if_, *iz0}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  Value wt = table_const(c, win);
  V gx = xz ? c.op("gather", {*xz, wt}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  V gi = iz ? c.op("gather", {*iz, wt}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  V hit = gi ? c.op("eq", {*gi, c.constant(ops::HostTensor::from_i64({n_out}, odef))}) : V{};
  V y = hit && gx ? c.op("where", {*hit, *gx, c.scalar(x.type.dtype, 0)}) : V{};
  // Hits at elements inside the default shape: one per input element when the indices are valid.
  ops::HostTensor inside_t(DType::boolean, {n_out});
  for (std::uint64_t e = 0; e < n_out; ++e) inside_t.store_bool(e, odef[e] >= 0);
  V real = hit ? c.op("logical_and", {*hit, c.constant(std::move(inside_t))}) : V{};
  V realn = real ? cast_to(c, *real, DType::i64) : V{};
  V count = realn ? c.op("sum", {*realn}, {{"axes", AttrValue(Ints{0})}, {"keepdims", AttrValue(false)}}) : V{};
  V ok = count ? c.op("eq", {*count, c.scalar(DType::i64, static_cast<double>(n_x))}) : V{};
  V rows = c.op("iota", {}, {{"shape", AttrValue(Shape{Dim::fixed(n_out)})}, {"axis", AttrValue(std::int64_t{0})}, {"dtype", AttrValue(DType::i64)}});
  V check = ok && rows ? c.op("where", {*ok, *rows, c.scalar(DType::i64, -1)}) : V{};
  V yc = y && check ? c.op("gather", {*y, *check}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  return yc && out0(c, reshape_to(c, *yc, dims_of(out)));
}

// MaxUnpool: y = zeros of the output shape; y[at(indices[p])] = x[p], the indices flat over
// the default output shape (as MaxPool made them), placed at the same coordinates of an
// explicit output_shape (as the suite's data has them).
bool max_unpool(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  auto ks = c.attr_ints("kernel_shape");
  auto st = c.attr_ints("strides");
  auto pads = c.attr_ints("pads");
  if (c.attr_error()) return false;
  if (!ks) return c.fail("I0005", "kernel_shape is required");
  auto xs = table_shape(c, x, "the input");
  if (!xs) return false;
  if (xs->size() < 3 || ks->size() != xs->size() - 2)
    return c.fail("I0005", "the input " + x.type.to_string() + " must be [N, C, spatial...] with one kernel extent per spatial axis");
  std::size_t sp = ks->size();
  Ints strides = st.value_or(Ints(sp, 1)), pd = pads.value_or(Ints(2 * sp, 0));
  if (strides.size() != sp || pd.size() != 2 * sp) return c.fail("I0005", "strides and pads must have one (strides) or two (pads) entries per spatial axis");
  U64s def{(*xs)[0], (*xs)[1]};
  for (std::size_t i = 0; i < sp; ++i) {
    std::int64_t k = (*ks)[i], s = strides[i], pb = pd[i], pe = pd[sp + i];
    auto in = static_cast<std::int64_t>((*xs)[2 + i]);  // <= 2^22
    if (k < 1 || k > (1 << 20) || s < 1 || s > (1 << 20) || pb < 0 || pe < 0 || pb > (1 << 20) || pe > (1 << 20))
      return c.fail("I0005", "kernel_shape, strides (1..2^20) or pads (0..2^20) of spatial axis " + std::to_string(i) + " out of range");
    std::int64_t o = (in - 1) * s - pb - pe + k;
    if (o < 0) return c.fail("I0005", "the default output extent of spatial axis " + std::to_string(i) + " is negative");
    def.push_back(static_cast<std::uint64_t>(o));
  }
  if (!count_of(def)) return c.fail("I0005", "the default output " + shape_str(def) + " has more than 2^22 elements");
  U64s out = def;
  if (c.has(2)) {
    auto os = c.known_ints(c.in(2), "output_shape (input 2)");
    if (!os) return false;
    if (os->size() != def.size()) return c.fail("I0005", "output_shape has " + std::to_string(os->size()) + " entries, the input rank is " + std::to_string(def.size()));
    for (std::size_t i = 0; i < os->size(); ++i) {
      if ((*os)[i] < 0) return c.fail("I0006", "output_shape[" + std::to_string(i) + "] = " + std::to_string((*os)[i]) + " is negative");
      out[i] = static_cast<std::uint64_t>((*os)[i]);
    }
    if (out[0] != def[0] || out[1] != def[1]) return c.fail("I0005", "output_shape " + shape_str(out) + " must keep the input's N and C");
    if (!count_of(out)) return c.fail("I0005", "output_shape " + shape_str(out) + " has more than 2^22 elements");
  }
  if (!c.in(1).known) {
    bool tiles = std::all_of(pd.begin(), pd.end(), [](std::int64_t v) { return v == 0; }) && strides == *ks;
    if (tiles && c.in(1).type.dtype == DType::i64) return max_unpool_runtime(c, x, c.in(1), *xs, *ks, def, out);
  }
  auto iv = index_values(c, c.in(1), "the indices (input 1)");
  if (!iv) return false;
  if (U64s(c.in(1).known->shape().begin(), c.in(1).known->shape().end()) != *xs)
    return c.fail("I0005", "the indices " + c.in(1).type.to_string() + " must have the input's shape " + x.type.to_string());
  std::uint64_t n_def = *count_of(def), n_out = *count_of(out), n_x = *count_of(*xs);
  U64s dst = strides_of(def), ost = strides_of(out);
  U64s table(n_out, n_x);  // n_x: the appended zero
  for (std::uint64_t p = 0; p < iv->size(); ++p) {
    std::int64_t i = (*iv)[p];
    if (i < 0 || static_cast<std::uint64_t>(i) >= n_def)
      return c.fail("I0005", "index " + std::to_string(i) + " is outside the default output " + shape_str(def));
    std::uint64_t t = 0;
    for (std::size_t d = 0; d < def.size(); ++d) {
      std::uint64_t at = (static_cast<std::uint64_t>(i) / dst[d]) % def[d];
      if (at >= out[d]) return c.fail("I0005", "index " + std::to_string(i) + " lies outside output_shape " + shape_str(out));
      t += at * ost[d];
    }
    table[t] = p;
  }
  V xf = flat(c, x, n_x);
  V both = xf ? c.op("concat", {*xf, c.constant(ops::HostTensor(x.type.dtype, {1}))}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  return both && out0(c, take(c, *both, table, dims_of(out)));
}

// TopK with k known: ranks by counting, then a one-hot pick (see the top of the file).
bool top_k(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  std::int64_t k;
  if (c.opset() < 10) {
    k = c.attr_int("k", -1);
  } else {
    if (!need(c, 2)) return false;
    auto kv = c.known_ints(c.in(1), "k (input 1)");
    if (!kv) return false;
    if (kv->size() != 1) return c.fail("I0005", "k must hold one value, not " + std::to_string(kv->size()));
    k = (*kv)[0];
  }
  bool largest = c.opset() < 11 || c.attr_int("largest", 1) != 0;
  (void)(c.opset() >= 11 && c.attr_int("sorted", 1));  // sorted = 0 leaves the order free: sorted is one
  std::int64_t a = c.attr_int("axis", -1);
  if (c.attr_error()) return false;
  if (x.rank() == 0) return c.fail("I0005", "TopK of a scalar");
  auto ax = c.axis(a, x.rank(), "axis");
  if (!ax) return false;
  const std::size_t r = x.rank(), axu = static_cast<std::size_t>(*ax);
  const Dim& nd = x.type.shape[axu];
  if (!nd.is_static()) return c.fail("I0012", "the axis has the symbolic dim " + nd.name());
  std::uint64_t n = nd.extent();
  if (k < 0 || static_cast<std::uint64_t>(k) > n)
    return c.fail("I0005", "k = " + std::to_string(k) + " is outside [0, " + std::to_string(n) + "]");
  if (n > 4096) return c.fail("I0005", "TopK over an axis of " + std::to_string(n) + " (rung ranks by n^2 compares: at most 4096)");
  if (auto total = x.type.element_count(); total && *total > (std::uint64_t{1} << 28) / std::max<std::uint64_t>(n, 1))
    return c.fail("I0005", "TopK of " + x.type.to_string() + " needs " + std::to_string(*total) + " x " + std::to_string(n) +
                               " compares, past the 2^28 rung's ranking TopK expands");
  auto ku = static_cast<std::uint64_t>(k);
  // The axis last.
  Ints perm, inv(r);
  for (std::size_t i = 0; i < r; ++i)
    if (i != axu) perm.push_back(static_cast<std::int64_t>(i));
  perm.push_back(*ax);
  for (std::size_t i = 0; i < r; ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  V xt = c.op("transpose", {x}, {{"perm", AttrValue(perm)}});
  if (!xt) return false;
  Shape st = xt->type.shape, si = st, sj = st;
  si.push_back(Dim::fixed(1));                  // [..., n (i), 1]
  sj.insert(sj.end() - 1, Dim::fixed(1));       // [..., 1, n (j)]
  V xi = reshape_to(c, *xt, si), xj = reshape_to(c, *xt, sj);
  if (!xi || !xj) return false;
  auto iota2 = [&](std::uint64_t rows, std::uint64_t cols, std::int64_t axis) {
    return c.op("iota", {}, {{"shape", AttrValue(Shape{Dim::fixed(rows), Dim::fixed(cols)})}, {"axis", AttrValue(axis)}, {"dtype", AttrValue(DType::i64)}});
  };
  V ii = iota2(n, 1, 0), jj = iota2(1, n, 1);
  V lower = ii && jj ? c.op("lt", {*jj, *ii}) : V{};  // j < i
  // j before i: x_j beats x_i, or they tie and j < i.
  V beats = c.op(largest ? "gt" : "lt", {*xj, *xi});
  V ties = c.op("eq", {*xj, *xi});
  if (dtype_info(x.type.dtype).is_float) {  // NaN above every number; NaNs tie with each other
    V nan_i = c.op("ne", {*xi, *xi}), nan_j = c.op("ne", {*xj, *xj});
    V not_i = nan_i ? c.op("logical_not", {*nan_i}) : V{}, not_j = nan_j ? c.op("logical_not", {*nan_j}) : V{};
    V nan_beats = largest ? (nan_j && not_i ? c.op("logical_and", {*nan_j, *not_i}) : V{})
                          : (nan_i && not_j ? c.op("logical_and", {*nan_i, *not_j}) : V{});
    V both = nan_i && nan_j ? c.op("logical_and", {*nan_i, *nan_j}) : V{};
    beats = beats && nan_beats ? c.op("logical_or", {*beats, *nan_beats}) : V{};
    ties = ties && both ? c.op("logical_or", {*ties, *both}) : V{};
  }
  V tie_first = ties && lower ? c.op("logical_and", {*ties, *lower}) : V{};
  V before = beats && tie_first ? c.op("logical_or", {*beats, *tie_first}) : V{};
  V before_n = before ? cast_to(c, *before, DType::i64) : V{};
  V rank = before_n ? c.op("sum", {*before_n}, {{"axes", AttrValue(Ints{static_cast<std::int64_t>(r)})}, {"keepdims", AttrValue(false)}}) : V{};
  // rank [..., n] -> [..., 1, n] against r = 0..k-1 as [k, 1]: one-hot [..., k, n].
  V rank_row = rank ? reshape_to(c, *rank, sj) : V{};
  V rr = iota2(ku, 1, 0);
  V hot = rank_row && rr ? c.op("eq", {*rank_row, *rr}) : V{};
  V picked = hot && jj ? c.op("where", {*hot, *jj, c.scalar(DType::i64, 0)}) : V{};
  V idx = picked ? c.op("sum", {*picked}, {{"axes", AttrValue(Ints{static_cast<std::int64_t>(r)})}, {"keepdims", AttrValue(false)}}) : V{};
  V vals = idx ? c.op("gather_elements", {*xt, *idx}, {{"axis", AttrValue(static_cast<std::int64_t>(r - 1))}}) : V{};
  V vo = vals ? c.op("transpose", {*vals}, {{"perm", AttrValue(inv)}}) : V{};
  V io = idx ? c.op("transpose", {*idx}, {{"perm", AttrValue(inv)}}) : V{};
  if (!vo || !io) return false;
  c.set(0, *vo);
  c.set(1, *io);
  return true;
}

}  // namespace

void add_scatter_handlers(std::vector<Handler>& h) {
  const char* writes = "concat, gather (an index table built at import); add/mul: per round gather, add or mul, where";
  h.push_back({"GatherND", 11, kMaxOpset, gather_nd,
               "gather from the flattened data: an index table built at import (indices known), else cast, where, mul, sum (flat rows)"});
  h.push_back({"Compress", 9, kMaxOpset, compress, "gather (the condition known at import)"});
  h.push_back({"Scatter", 9, 10, scatter_elements, writes});
  h.push_back({"ScatterElements", 11, kMaxOpset, scatter_elements, writes});
  h.push_back({"ScatterND", 11, kMaxOpset, scatter_nd, writes});
  h.push_back({"MaxUnpool", 9, kMaxOpset, max_unpool,
               "concat with a zero, gather (indices known at import); run-time indices over tiling windows: gather, eq, where, sum (a check)"});
  h.push_back({"TopK", 1, kMaxOpset, top_k, "transpose, gt/lt, eq, ne, logical ops, sum (ranks), eq, where, sum, gather_elements (k known)"});
}

}  // namespace rung::onnx_import
