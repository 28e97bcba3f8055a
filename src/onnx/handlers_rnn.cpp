// RNN, GRU and LSTM unrolled over a static sequence length: per direction and time step the
// gate equations of the ONNX operator specification, in the reference's order of operations
// (x·Wᵀ + h·Rᵀ + (Wb + Rb), then the activations), as registry matmul, add, mul and
// activation nodes. Forward, reverse and bidirectional; layout 0 ([S, B, ·]) and 1 ([B, S, ·]).
// sequence_lens masks the forward direction: past a batch row's length its state stays and its
// Y rows are 0. Refused with I0005, never approximated: sequence_lens with a reverse direction
// (unless known and all full), clip, activations other than Sigmoid/Tanh/Relu or with
// alpha/beta, LSTM's input_forget.
#include <algorithm>
#include <string>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

enum class Cell { rnn, gru, lstm };

int gates_of(Cell k) { return k == Cell::rnn ? 1 : k == Cell::gru ? 3 : 4; }

// x[lo:hi] along `axis`.
V part(NodeCtx& c, const Value& x, std::int64_t axis, std::int64_t lo, std::int64_t hi) {
  return c.op("slice", {x}, {{"starts", AttrValue(Ints{lo})}, {"ends", AttrValue(Ints{hi})}, {"axes", AttrValue(Ints{axis})}});
}

// x without its (extent 1) axis `axis`.
V drop_axis(NodeCtx& c, const V& x, std::size_t axis) {
  if (!x) return x;
  Shape s = x->type.shape;
  s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
  return reshape_to(c, *x, s);
}

// x with a new axis of extent 1 at `axis`.
V add_axis(NodeCtx& c, const V& x, std::size_t axis) {
  if (!x) return x;
  Shape s = x->type.shape;
  s.insert(s.begin() + static_cast<std::ptrdiff_t>(axis), Dim::fixed(1));
  return reshape_to(c, *x, s);
}

V add(NodeCtx& c, const V& a, const V& b) { return a && b ? c.op("add", {*a, *b}) : V{}; }
V mul(NodeCtx& c, const V& a, const V& b) { return a && b ? c.op("mul", {*a, *b}) : V{}; }
V mm_t(NodeCtx& c, const V& a, const V& b) {  // a · bᵀ
  return a && b ? c.op("matmul", {*a, *b}, {{"transpose_b", AttrValue(true)}}) : V{};
}

struct Activation {
  const char* op = nullptr;  // registry op; null: refused
};

V apply(NodeCtx& c, const Activation& f, const V& x) { return x ? c.op(f.op, {*x}) : V{}; }

// The cell's activations for one direction: attribute `activations` lists them per direction.
std::optional<std::vector<Activation>> activations(NodeCtx& c, Cell k, int directions) {
  std::vector<std::string> names;
  const int per = k == Cell::rnn ? 1 : k == Cell::gru ? 2 : 3;
  if (c.has_attr("activations")) {
    auto given = c.attr_strings("activations");
    if (!given) return std::nullopt;  // the wrong attribute type: reported
    names = *given;
  } else {
    for (int d = 0; d < directions; ++d) {
      if (k == Cell::rnn) names.push_back("Tanh");
      if (k == Cell::gru) names.insert(names.end(), {"Sigmoid", "Tanh"});
      if (k == Cell::lstm) names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
    }
  }
  if (c.has_attr("activation_alpha") || c.has_attr("activation_beta")) {
    c.fail("I0005", "activation_alpha and activation_beta are not supported");
    return std::nullopt;
  }
  if (static_cast<int>(names.size()) != per * directions) {
    c.fail("I0005", "activations lists " + std::to_string(names.size()) + " functions; " + std::to_string(per * directions) +
                        " expected (" + std::to_string(per) + " per direction)");
    return std::nullopt;
  }
  std::vector<Activation> out;
  for (const auto& n : names) {
    Activation a;
    if (n == "Sigmoid") a.op = "sigmoid";
    else if (n == "Tanh") a.op = "tanh";
    else if (n == "Relu") a.op = "relu";
    if (!a.op) {
      c.fail("I0005", "activation \"" + n + "\" is not supported (Sigmoid, Tanh, Relu are)");
      return std::nullopt;
    }
    out.push_back(a);
  }
  return out;
}

// One direction's weights, each 2-D ([G·H, I], [G·H, H]) or 1-D biases ([G·H]), or absent.
struct Weights {
  V w, r, wb, rb, p;  // p: LSTM peepholes [3·H] (i, o, f)
};

V direction_slice(NodeCtx& c, const Value& v, std::int64_t d) { return drop_axis(c, part(c, v, 0, d, d + 1), 0); }

std::optional<Weights> weights(NodeCtx& c, Cell k, std::int64_t d, std::int64_t hidden) {
  const std::int64_t gh = gates_of(k) * hidden;
  Weights w;
  w.w = direction_slice(c, c.in(1), d);
  w.r = direction_slice(c, c.in(2), d);
  if (c.has(3)) {
    V b = direction_slice(c, c.in(3), d);
    w.wb = b ? part(c, *b, 0, 0, gh) : V{};
    w.rb = b ? part(c, *b, 0, gh, 2 * gh) : V{};
    if (!w.rb) return std::nullopt;
  }
  if (k == Cell::lstm && c.has(7)) {
    w.p = direction_slice(c, c.in(7), d);
    if (!w.p) return std::nullopt;
  }
  if (!w.w || !w.r) return std::nullopt;
  return w;
}

// A gate's columns [g·H, (g+1)·H) of a [B, G·H] value, or of a [G·H] bias.
V gate(NodeCtx& c, const V& v, int g, std::int64_t hidden) {
  if (!v) return v;
  return part(c, *v, static_cast<std::int64_t>(v->rank()) - 1, g * hidden, (g + 1) * hidden);
}

// x·Wᵀ + h·Rᵀ (+ Wb + Rb) for all gates at once: [B, G·H].
V gates_in(NodeCtx& c, const Weights& w, const V& x, const V& h) {
  V g = add(c, mm_t(c, x, w.w), mm_t(c, h, w.r));
  if (w.wb) g = add(c, g, add(c, w.wb, w.rb));
  return g;
}

struct State {
  V h, cell;  // [B, H]; cell only for LSTM
};

// One time step of the cell from state s on input x [B, I].
std::optional<State> step(NodeCtx& c, Cell k, const Weights& w, const std::vector<Activation>& f, const State& s, const V& x,
                          std::int64_t hidden) {
  if (k == Cell::rnn) return State{apply(c, f[0], gates_in(c, w, x, s.h)), {}};
  if (k == Cell::gru) {
    // z and r from the combined gates; the candidate h̃ needs r first.
    V xw = mm_t(c, x, w.w), hr = mm_t(c, s.h, w.r);
    V zr_b = w.wb ? add(c, gate(c, w.wb, 0, hidden), gate(c, w.rb, 0, hidden)) : V{};
    V rr_b = w.wb ? add(c, gate(c, w.wb, 1, hidden), gate(c, w.rb, 1, hidden)) : V{};
    V z = add(c, gate(c, xw, 0, hidden), gate(c, hr, 0, hidden));
    V r = add(c, gate(c, xw, 1, hidden), gate(c, hr, 1, hidden));
    if (w.wb) z = add(c, z, zr_b), r = add(c, r, rr_b);
    z = apply(c, f[0], z), r = apply(c, f[0], r);
    V rh = w.r ? part(c, *w.r, 0, 2 * hidden, 3 * hidden) : V{};  // rows [2H, 3H) of R: [H, H]
    V cand;
    if (c.attr_int("linear_before_reset", 0) != 0) {  // g(x·Whᵀ + r ⊙ (h·Rhᵀ + Rbh) + Wbh)
      V hrh = gate(c, hr, 2, hidden);
      if (w.rb) hrh = add(c, hrh, gate(c, w.rb, 2, hidden));
      cand = add(c, gate(c, xw, 2, hidden), mul(c, r, hrh));
      if (w.wb) cand = add(c, cand, gate(c, w.wb, 2, hidden));
    } else {  // g(x·Whᵀ + (r ⊙ h)·Rhᵀ + Wbh + Rbh)
      cand = add(c, gate(c, xw, 2, hidden), mm_t(c, mul(c, r, s.h), rh));
      if (w.wb) cand = add(c, add(c, cand, gate(c, w.wb, 2, hidden)), gate(c, w.rb, 2, hidden));
    }
    cand = apply(c, f[1], cand);
    if (!z || !cand) return std::nullopt;
    V one_minus_z = c.op("sub", {c.scalar(z->type.dtype, 1.0), *z});
    return State{add(c, mul(c, one_minus_z, cand), mul(c, z, s.h)), {}};
  }
  // LSTM: gates i, o, f, c; peepholes i, o, f.
  V all = gates_in(c, w, x, s.h);
  V i = gate(c, all, 0, hidden), o = gate(c, all, 1, hidden), fg = gate(c, all, 2, hidden), cc = gate(c, all, 3, hidden);
  if (w.p) {
    i = add(c, i, mul(c, gate(c, w.p, 0, hidden), s.cell));
    fg = add(c, fg, mul(c, gate(c, w.p, 2, hidden), s.cell));
  }
  i = apply(c, f[0], i), fg = apply(c, f[0], fg), cc = apply(c, f[1], cc);
  V cell = add(c, mul(c, fg, s.cell), mul(c, i, cc));
  if (w.p) o = add(c, o, mul(c, gate(c, w.p, 1, hidden), cell));
  o = apply(c, f[0], o);
  V h = mul(c, o, apply(c, f[2], cell));
  if (!h || !cell) return std::nullopt;
  return State{h, cell};
}

// A zero [B, H] state (B must be static), or direction d of a given [D, B, H] initial state.
V initial(NodeCtx& c, std::size_t input, std::int64_t d, const Value& like_x, std::int64_t hidden) {
  if (c.has(input)) return direction_slice(c, c.in(input), d);
  auto dims = c.static_shape(like_x, "X (a zero initial state needs a static batch)");
  if (!dims) return std::nullopt;
  ops::HostTensor z(like_x.type.dtype, ops::Extents{(*dims)[1], static_cast<std::uint64_t>(hidden)});
  return c.constant(std::move(z));
}

bool recurrent(NodeCtx& c, Cell k) {
  if (!need(c, 3)) return false;
  const std::int64_t hidden = c.attr_int("hidden_size", 0);
  if (hidden <= 0) return c.fail("I0005", "hidden_size must be given and positive");
  // hidden_size must be what W and R hold (W [dirs, gates*H, I], R [dirs, gates*H, H]): checked
  // before any state of [B, H] is made, so a hostile hidden_size cannot size an allocation.
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    const TensorType& t = c.in(i).type;
    const std::string name = i == 1 ? "W" : "R";
    if (t.rank() != 3) return c.fail("I0005", name + " must be 3-D, got " + t.to_string());
    const Dim& rows = t.shape[1];
    if (!rows.is_static() || rows.extent() % static_cast<std::uint64_t>(gates_of(k)) != 0 ||
        rows.extent() / static_cast<std::uint64_t>(gates_of(k)) != static_cast<std::uint64_t>(hidden))
      return c.fail("I0005", "hidden_size " + std::to_string(hidden) + " disagrees with " + name + " " + t.to_string() + " (dim 1 is " +
                                 std::to_string(gates_of(k)) + " gates x hidden_size)");
  }
  const std::string direction = c.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return c.fail("I0005", "direction \"" + direction + "\" (forward, reverse or bidirectional)");
  const int dirs = direction == "bidirectional" ? 2 : 1;
  const std::int64_t layout = c.opset() >= 14 ? c.attr_int("layout", 0) : 0;
  if (layout != 0 && layout != 1) return c.fail("I0005", "layout " + std::to_string(layout) + " (0 or 1)");
  if (c.has_attr("clip")) return c.fail("I0005", "clip is not supported");
  if (k == Cell::lstm && c.attr_int("input_forget", 0) != 0) return c.fail("I0005", "input_forget = 1 is not supported");
  if (k == Cell::gru) (void)c.attr_int("linear_before_reset", 0);
  auto f = activations(c, k, dirs);
  if (!f) return false;

  // X as [S, B, I]; the sequence length must be static: the cell is unrolled.
  V x = c.in(0);
  if (x->rank() != 3) return c.fail("I0005", "X must be 3-D, got " + x->type.to_string());
  if (layout == 1) x = c.op("transpose", {*x}, {{"perm", AttrValue(Ints{1, 0, 2})}});
  if (!x) return false;
  if (!x->type.shape[0].is_static()) return c.fail("I0012", "the sequence length of X is symbolic: the cell is unrolled over it");
  const auto steps = static_cast<std::int64_t>(x->type.shape[0].extent());
  if (steps == 0) return c.fail("I0005", "an empty sequence");
  const std::size_t per = f->size() / static_cast<std::size_t>(dirs);
  // sequence_lens: [B] lengths. Known and all equal to the sequence length, it changes nothing.
  V lens = c.has(4) ? V(c.in(4)) : V{};
  if (lens && lens->known) {
    auto l = c.known_ints(*lens, "sequence_lens");
    if (!l) return false;
    if (std::all_of(l->begin(), l->end(), [&](std::int64_t v) { return v == steps; })) lens.reset();
  }
  if (lens && direction != "forward")
    return c.fail("I0005", "sequence_lens with direction \"" + direction + "\" (masking is done for forward only)");
  if (lens && lens->rank() != 1) return c.fail("I0005", "sequence_lens must be 1-D, got " + lens->type.to_string());

  std::vector<V> ys_dir, h_last, c_last;
  for (int d = 0; d < dirs; ++d) {
    auto w = weights(c, k, d, hidden);
    if (!w) return false;
    std::vector<Activation> fd(f->begin() + static_cast<std::ptrdiff_t>(d * per), f->begin() + static_cast<std::ptrdiff_t>((d + 1) * per));
    State s{initial(c, 5, d, *x, hidden), k == Cell::lstm ? initial(c, 6, d, *x, hidden) : V{}};
    if (!s.h || (k == Cell::lstm && !s.cell)) return false;
    const bool reverse = direction == "reverse" || d == 1;
    std::vector<V> ys(static_cast<std::size_t>(steps));
    for (std::int64_t n = 0; n < steps; ++n) {
      const std::int64_t t = reverse ? steps - 1 - n : n;
      auto next = step(c, k, *w, fd, s, drop_axis(c, part(c, *x, 0, t, t + 1), 0), hidden);
      if (!next) return false;
      V y_t = next->h;
      if (lens) {  // rows with t >= length keep their state and give Y = 0
        V live = c.op("lt", {c.scalar(lens->type.dtype, static_cast<double>(t)), *lens});
        if (live) live = reshape_to(c, *live, {live->type.shape[0], Dim::fixed(1)});
        auto keep = [&](const V& now, const V& before) { return live && now && before ? c.op("where", {*live, *now, *before}) : V{}; };
        y_t = keep(next->h, c.scalar(next->h->type.dtype, 0.0));
        next->h = keep(next->h, s.h);
        if (k == Cell::lstm) next->cell = keep(next->cell, s.cell);
        if (!next->h || (k == Cell::lstm && !next->cell)) return false;
      }
      s = *next;
      ys[static_cast<std::size_t>(t)] = add_axis(c, y_t, 0);  // [1, B, H]
    }
    std::vector<Value> parts;
    for (auto& y : ys) {
      if (!y) return false;
      parts.push_back(*y);
    }
    ys_dir.push_back(add_axis(c, parts.size() == 1 ? V(parts[0]) : c.op("concat", parts, {{"axis", AttrValue(std::int64_t{0})}}), 1));
    h_last.push_back(add_axis(c, s.h, 0));
    c_last.push_back(k == Cell::lstm ? add_axis(c, s.cell, 0) : V{});
  }
  auto join = [&](std::vector<V>& vs, std::int64_t axis) -> V {
    std::vector<Value> parts;
    for (auto& v : vs) {
      if (!v) return std::nullopt;
      parts.push_back(*v);
    }
    return parts.size() == 1 ? V(parts[0]) : c.op("concat", parts, {{"axis", AttrValue(axis)}});
  };
  V y = join(ys_dir, 1);     // [S, D, B, H]
  V yh = join(h_last, 0);    // [D, B, H]
  V yc = k == Cell::lstm ? join(c_last, 0) : V{};
  if (layout == 1) {
    if (y) y = c.op("transpose", {*y}, {{"perm", AttrValue(Ints{2, 0, 1, 3})}});    // [B, S, D, H]
    if (yh) yh = c.op("transpose", {*yh}, {{"perm", AttrValue(Ints{1, 0, 2})}});    // [B, D, H]
    if (yc) yc = c.op("transpose", {*yc}, {{"perm", AttrValue(Ints{1, 0, 2})}});
  }
  if (!y || !yh || (k == Cell::lstm && !yc)) return false;
  c.set(0, *y);
  c.set(1, *yh);
  if (k == Cell::lstm) c.set(2, *yc);
  return true;
}

bool rnn(NodeCtx& c) { return recurrent(c, Cell::rnn); }
bool gru(NodeCtx& c) { return recurrent(c, Cell::gru); }
bool lstm(NodeCtx& c) { return recurrent(c, Cell::lstm); }

}  // namespace

void add_rnn_handlers(std::vector<Handler>& h) {
  h.push_back({"RNN", 7, kMaxOpset, rnn, "matmul, add, tanh|sigmoid|relu, slice, concat (unrolled)"});
  h.push_back({"GRU", 7, kMaxOpset, gru, "matmul, add, mul, sub, sigmoid, tanh, slice, concat (unrolled)"});
  h.push_back({"LSTM", 7, kMaxOpset, lstm, "matmul, add, mul, sigmoid, tanh, slice, concat (unrolled)"});
}

}  // namespace rung::onnx_import
