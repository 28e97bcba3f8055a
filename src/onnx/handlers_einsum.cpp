// Einsum with one or two operands, by the forms rung's ops can state: a repeated label takes
// a diagonal (the two axes merged, then a slice with step n + 1), a label in one operand only
// and not in the output is summed, and two operands meet in one batched matmul ([batch,
// left, contracted] @ [batch, contracted, right]) before a transpose to the output's order.
// The ellipsis stands for the same dims in every operand (broadcasting them is refused).
#include <algorithm>
#include <map>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;
using Labels = std::vector<int>;  // a letter's code; the ellipsis' dims are 256 + k

constexpr int kEllipsis = 256;

struct Operand {
  Value v;
  Labels labels;  // one per axis
};

struct Equation {
  std::vector<std::string> terms;
  std::optional<std::string> out;  // absent: the implicit output
};

Equation split(const std::string& text) {
  std::string s;
  for (char ch : text)
    if (ch != ' ') s += ch;
  Equation e;
  auto arrow = s.find("->");
  std::string lhs = s.substr(0, arrow);
  if (arrow != std::string::npos) e.out = s.substr(arrow + 2);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lhs.size(); ++i)
    if (i == lhs.size() || lhs[i] == ',') {
      e.terms.push_back(lhs.substr(start, i - start));
      start = i + 1;
    }
  return e;
}

// A term's labels against a rank; the ellipsis takes the dims the letters leave, numbered
// from the right so that every operand's last ellipsis dim is the same label.
std::optional<Labels> labels_of(const std::string& term, std::size_t rank, std::size_t* ellipsis_dims) {
  Labels before, after;
  bool seen = false;
  for (std::size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0 && !seen) {
      seen = true;
      i += 2;
      continue;
    }
    char ch = term[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return std::nullopt;
    (seen ? after : before).push_back(static_cast<unsigned char>(ch));
  }
  std::size_t letters = before.size() + after.size();
  if (letters > rank || (!seen && letters != rank)) return std::nullopt;
  std::size_t e = rank - letters;
  if (ellipsis_dims) *ellipsis_dims = seen ? e : 0;
  Labels out = before;
  for (std::size_t k = 0; k < e; ++k) out.push_back(kEllipsis + static_cast<int>(e - 1 - k));
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

std::string axes_text(const Labels& l) {
  std::string s;
  for (int x : l) s += x >= kEllipsis ? std::string(".") : std::string(1, static_cast<char>(x));
  return s;
}

V transpose_to(NodeCtx& c, const Value& v, const Ints& perm) {
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<std::int64_t>(i);
  if (identity) return v;
  return c.op("transpose", {v}, {{"perm", AttrValue(perm)}});
}

// Transposes o so that its labels read `order` (a permutation of them).
V arrange(NodeCtx& c, Operand& o, const Labels& order) {
  Ints perm;
  for (int l : order) perm.push_back(std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin());
  V t = transpose_to(c, o.v, perm);
  if (t) o = {*t, order};
  return t;
}

// The diagonal of every label that appears twice or more in one operand: its two axes are
// moved last and merged, and element (a, a) of the merged axis sits at a (n + 1).
bool diagonals(NodeCtx& c, Operand& o) {
  for (;;) {
    std::size_t i = 0, j = 0;
    for (std::size_t p = 0; p < o.labels.size() && j == 0; ++p)
      for (std::size_t q = p + 1; q < o.labels.size() && j == 0; ++q)
        if (o.labels[p] == o.labels[q]) i = p, j = q;
    if (j == 0) return true;
    std::uint64_t n = o.v.type.shape[i].extent();
    Labels order;
    Ints perm;
    for (std::size_t k = 0; k < o.labels.size(); ++k)
      if (k != i && k != j) {
        order.push_back(o.labels[k]);
        perm.push_back(static_cast<std::int64_t>(k));
      }
    order.push_back(o.labels[i]);
    perm.push_back(static_cast<std::int64_t>(i));
    perm.push_back(static_cast<std::int64_t>(j));
    V t = transpose_to(c, o.v, perm);
    if (!t) return false;
    Shape flat(t->type.shape.begin(), t->type.shape.end() - 2);
    flat.push_back(Dim::fixed(n * n));
    V f = reshape_to(c, *t, flat);
    auto last = static_cast<std::int64_t>(flat.size() - 1), nn = static_cast<std::int64_t>(n * n);
    V d = f ? c.op("slice", {*f}, {{"starts", AttrValue(Ints{0})}, {"ends", AttrValue(Ints{nn})}, {"axes", AttrValue(Ints{last})},
                                   {"steps", AttrValue(Ints{static_cast<std::int64_t>(n + 1)})}})
            : V{};
    if (!d) return false;
    o = {*d, order};
  }
}

// Sums the labels that neither `keep` nor the other operand's labels hold.
bool sum_unused(NodeCtx& c, Operand& o, const Labels& keep, const Labels& other) {
  Ints axes;
  Labels rest;
  for (std::size_t k = 0; k < o.labels.size(); ++k) {
    int l = o.labels[k];
    bool used = std::count(keep.begin(), keep.end(), l) || std::count(other.begin(), other.end(), l);
    if (used) rest.push_back(l);
    else axes.push_back(static_cast<std::int64_t>(k));
  }
  if (axes.empty()) return true;
  V s = c.op("sum", {o.v}, {{"axes", AttrValue(axes)}, {"keepdims", AttrValue(false)}});
  if (!s) return false;
  o = {*s, rest};
  return true;
}

std::uint64_t product(const Shape& s, std::size_t from, std::size_t to) {
  std::uint64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= s[i].extent();
  return p;
}

bool einsum(NodeCtx& c) {
  if (!need(c, 1)) return false;
  std::string text = c.attr_string("equation", "");
  if (c.attr_error()) return false;
  auto refuse = [&](const std::string& why) {
    return c.fail("I0005", "Einsum \"" + text + "\": " + why);
  };
  auto eq = split(text);
  if (eq.terms.size() != c.input_count())
    return refuse("the equation names " + std::to_string(eq.terms.size()) + " operands, the node has " + std::to_string(c.input_count()));
  if (c.input_count() > 2) return refuse("rung imports Einsum of one or two operands");
  std::vector<Operand> ops;
  std::size_t ell = 0;
  std::map<int, Dim> extent;
  for (std::size_t k = 0; k < c.input_count(); ++k) {
    if (!need(c, k + 1)) return false;
    const Value& v = c.in(k);
    if (!c.static_shape(v, "operand " + std::to_string(k))) return false;
    std::size_t e = 0;
    auto l = labels_of(eq.terms[k], v.rank(), &e);
    if (!l) return refuse("term \"" + eq.terms[k] + "\" does not fit operand " + std::to_string(k) + " " + v.type.to_string());
    ell = std::max(ell, e);
    for (std::size_t a = 0; a < l->size(); ++a) {
      auto [it, fresh] = extent.emplace((*l)[a], v.type.shape[a]);
      if (!fresh && it->second != v.type.shape[a])
        return refuse("label " + axes_text({(*l)[a]}) + " has extents " + it->second.to_string() + " and " + v.type.shape[a].to_string() +
                      " (rung does not broadcast einsum operands)");
    }
    ops.push_back({v, *l});
  }
  Labels out;
  if (eq.out) {
    // The output's rank is its letters plus the ellipsis' dims: parse against that rank.
    std::size_t letters = 0;
    bool dots = eq.out->find("...") != std::string::npos;
    for (char ch : *eq.out) letters += ch != '.';
    auto l = labels_of(*eq.out, letters + (dots ? ell : 0), nullptr);
    if (!l) return refuse("the output term \"" + *eq.out + "\" is not letters and one ellipsis");
    out = *l;
    for (int x : out) {
      if (std::count(out.begin(), out.end(), x) > 1) return refuse("the output repeats label " + axes_text({x}));
      if (!extent.count(x)) return refuse("the output label " + axes_text({x}) + " is in no operand");
    }
  } else {  // numpy's implicit form: the ellipsis, then the letters seen once, in order
    std::map<int, int> seen;
    for (const auto& o : ops)
      for (int x : o.labels) ++seen[x];
    for (std::size_t k = ell; k-- > 0;) out.push_back(kEllipsis + static_cast<int>(k));
    for (auto [x, n] : seen)
      if (x < kEllipsis && n == 1) out.push_back(x);
  }
  for (auto& o : ops)
    if (!diagonals(c, o)) return false;
  if (ops.size() == 1) {
    if (!sum_unused(c, ops[0], out, {})) return false;
    return arrange(c, ops[0], out) && out0(c, ops[0].v);
  }
  Operand &a = ops[0], &b = ops[1];
  if (!sum_unused(c, a, out, b.labels) || !sum_unused(c, b, out, a.labels)) return false;
  auto in = [](const Labels& l, int x) { return std::count(l.begin(), l.end(), x) > 0; };
  Labels batch, left, right, contracted;
  for (int x : a.labels) (in(b.labels, x) ? (in(out, x) ? batch : contracted) : left).push_back(x);
  for (int x : b.labels)
    if (!in(a.labels, x)) right.push_back(x);
  auto cat = [](Labels x, const Labels& y, const Labels& z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  if (!arrange(c, a, cat(batch, left, contracted)) || !arrange(c, b, cat(batch, contracted, right))) return false;
  const Shape &sa = a.v.type.shape, &sb = b.v.type.shape;
  std::size_t nb = batch.size(), nl = left.size(), nk = contracted.size();
  Shape batch_dims(sa.begin(), sa.begin() + static_cast<std::ptrdiff_t>(nb));
  auto fixed3 = [](std::uint64_t x, std::uint64_t y, std::uint64_t z) { return Shape{Dim::fixed(x), Dim::fixed(y), Dim::fixed(z)}; };
  std::uint64_t B = product(sa, 0, nb), L = product(sa, nb, nb + nl), K = product(sa, nb + nl, sa.size());
  std::uint64_t R = product(sb, nb + nk, sb.size());
  V ma = reshape_to(c, a.v, fixed3(B, L, K)), mb = reshape_to(c, b.v, fixed3(B, K, R));
  V y = ma && mb ? c.op("matmul", {*ma, *mb}) : V{};
  if (!y) return false;
  Shape ys = batch_dims;
  ys.insert(ys.end(), sa.begin() + static_cast<std::ptrdiff_t>(nb), sa.begin() + static_cast<std::ptrdiff_t>(nb + nl));
  ys.insert(ys.end(), sb.begin() + static_cast<std::ptrdiff_t>(nb + nk), sb.end());
  V shaped = reshape_to(c, *y, ys);
  if (!shaped) return false;
  Operand r{*shaped, cat(batch, left, right)};
  return arrange(c, r, out) && out0(c, r.v);
}

}  // namespace

void add_einsum_handlers(std::vector<Handler>& h) {
  h.push_back({"Einsum", 12, kMaxOpset, einsum,
               "one or two operands: transpose, reshape and slice (diagonals), sum, matmul"});
}

}  // namespace rung::onnx_import
