// If, Loop and Scan, unrolled at import: If imports the branch its condition picks (the
// condition known at import: a constant, folded, or a bound graph input), Loop and Scan import
// their body once per iteration (subgraph.h), a Loop's trip count and each iteration's
// condition known at import, a Scan's length static. Loop-carried values flow from one
// iteration's import to the next; scan outputs are stacked with reshape and concat. An unknown
// condition or trip count is I0012 naming what to bind; more than kMaxIterations is I0002.
#include <algorithm>

#include "onnx/handlers.h"
#include "onnx/subgraph.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

// A boolean (or integer) scalar known at import (I0012 naming `what` when it is not).
std::optional<bool> known_flag(NodeCtx& c, const Value& v, const std::string& what) {
  if (!v.known) return c.not_known(v, what), std::nullopt;
  if (v.known->numel() != 1 || dtype_info(v.known->dtype()).is_float || v.known->dtype() == DType::u64)
    return c.fail("I0005", what + " must be one boolean, got " + v.type.to_string()), std::nullopt;
  return v.known->load_i64(0) != 0;
}

const ::onnx::GraphProto* graph_attr(NodeCtx& c, const char* name) {
  const auto* g = c.attr_graph(name);
  if (!g && !c.attr_error()) c.fail("I0005", std::string("the required attribute \"") + name + "\" is missing");
  return g;
}

// x without axis `axis` at index i (slice and reshape).
V take(NodeCtx& c, const Value& x, std::size_t axis, std::uint64_t i) {
  auto a = static_cast<std::int64_t>(axis);
  auto s = static_cast<std::int64_t>(i);
  V one = c.op("slice", {x}, {{"starts", AttrValue(Ints{s})}, {"ends", AttrValue(Ints{s + 1})}, {"axes", AttrValue(Ints{a})}});
  if (!one) return std::nullopt;
  Shape shape = x.type.shape;
  shape.erase(shape.begin() + a);
  return reshape_to(c, *one, shape);
}

// The values stacked along a new axis `axis` (each the same type, or concat reports).
V stack(NodeCtx& c, const std::vector<Value>& xs, std::size_t axis) {
  std::vector<Value> parts;
  for (const auto& x : xs) {
    Shape shape = x.type.shape;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), Dim::fixed(1));
    V r = reshape_to(c, x, shape);
    if (!r) return std::nullopt;
    parts.push_back(*r);
  }
  if (parts.size() == 1) return parts[0];
  return c.op("concat", parts, {{"axis", AttrValue(static_cast<std::int64_t>(axis))}});
}

bool if_op(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const auto* then_g = graph_attr(c, "then_branch");
  const auto* else_g = then_g ? graph_attr(c, "else_branch") : nullptr;
  if (!else_g) return false;
  auto cond = known_flag(c, c.in(0), "the condition (input 0)");
  if (!cond) return false;
  const auto& g = *cond ? *then_g : *else_g;
  if (static_cast<std::size_t>(g.output_size()) != c.results().size())
    return c.fail("I0005", std::string(*cond ? "then_branch" : "else_branch") + " has " + std::to_string(g.output_size()) +
                               " outputs; the node has " + std::to_string(c.results().size()));
  auto outs = import_body(c, g, {}, *cond ? "then_branch" : "else_branch");
  if (!outs) return false;
  for (std::size_t i = 0; i < outs->size(); ++i) c.set(i, (*outs)[i]);
  return true;
}

bool loop(NodeCtx& c) {
  const auto* body = graph_attr(c, "body");
  if (!body) return false;
  if (c.input_count() < 2) return c.fail("I0005", "Loop takes M, cond and the loop-carried values (M and cond may be empty names)");
  std::size_t carried = c.input_count() - 2;
  for (std::size_t i = 0; i < carried; ++i)
    if (!c.has(2 + i)) return c.fail("I0005", "loop-carried input " + std::to_string(2 + i) + " is empty");
  if (c.results().size() < carried) return c.fail("I0005", "the node has fewer outputs than loop-carried values");
  std::size_t scans = c.results().size() - carried;
  if (static_cast<std::size_t>(body->output_size()) != 1 + carried + scans)
    return c.fail("I0005", "the body has " + std::to_string(body->output_size()) + " outputs; the node needs 1 + " +
                               std::to_string(carried) + " + " + std::to_string(scans));
  std::optional<std::int64_t> trips;
  if (c.has(0)) {
    auto m = c.known_ints(c.in(0), "the trip count M (input 0)");
    if (!m) return false;
    if (m->size() != 1) return c.fail("I0005", "the trip count must be one value, got " + c.in(0).type.to_string());
    if ((*m)[0] < 0) return c.fail("I0005", "the trip count " + std::to_string((*m)[0]) + " is negative");
    trips = (*m)[0];
  }
  bool cond = true;
  if (c.has(1)) {
    auto k = known_flag(c, c.in(1), "the condition (input 1)");
    if (!k) return false;
    cond = *k;
  }
  if (!trips && !c.has(1)) return c.fail("I0005", "neither a trip count nor a condition: the loop never ends");
  std::vector<Value> state;
  for (std::size_t i = 0; i < carried; ++i) state.push_back(c.in(2 + i));
  std::vector<std::vector<Value>> scanned(scans);
  std::uint64_t i = 0;
  for (; cond && (!trips || i < static_cast<std::uint64_t>(*trips)); ++i) {
    if (i >= kMaxIterations)
      return c.fail("I0002", "the loop runs more than " + std::to_string(kMaxIterations) + " iterations (rung unrolls loops at import)");
    std::vector<Value> args{c.scalar(DType::i64, static_cast<double>(i)), c.scalar(DType::boolean, 1)};
    args.insert(args.end(), state.begin(), state.end());
    std::string what = "body iteration " + std::to_string(i);
    auto outs = import_body(c, *body, args, what);
    if (!outs) return false;
    auto k = known_flag(c, (*outs)[0], what + "'s condition output");
    if (!k) return false;
    cond = *k;
    for (std::size_t j = 0; j < carried; ++j) state[j] = (*outs)[1 + j];
    for (std::size_t j = 0; j < scans; ++j) scanned[j].push_back((*outs)[1 + carried + j]);
  }
  for (std::size_t j = 0; j < carried; ++j) c.set(j, state[j]);
  if (scans > 0 && i == 0) return c.fail("I0005", "the loop runs no iteration: its scan outputs have no type rung can state");
  for (std::size_t j = 0; j < scans; ++j) {
    V y = stack(c, scanned[j], 0);
    if (!y) return false;
    c.set(carried + j, *y);
  }
  return true;
}

// One scan over `length` steps: the body sees the states and one slice of each scan input.
struct ScanPlan {
  std::vector<std::size_t> in_axes;
  std::vector<std::int64_t> out_axes;  // negative: from the end of the stacked output's rank
  std::vector<bool> in_reverse, out_reverse;
};

std::optional<std::pair<std::vector<Value>, std::vector<Value>>> scan_run(NodeCtx& c, const ::onnx::GraphProto& body,
                                                                          std::vector<Value> state, const std::vector<Value>& xs,
                                                                          const ScanPlan& p, std::size_t scans_out,
                                                                          const std::string& prefix) {
  std::uint64_t length = 0;
  for (std::size_t j = 0; j < xs.size(); ++j) {
    const Dim& d = xs[j].type.shape[p.in_axes[j]];
    if (!d.is_static()) return c.fail("I0012", "scan input " + std::to_string(j) + " has the symbolic scan dim " + d.name()), std::nullopt;
    if (j > 0 && d.extent() != length)
      return c.fail("I0005", "the scan inputs' lengths differ (" + std::to_string(length) + " and " + std::to_string(d.extent()) + ")"), std::nullopt;
    length = d.extent();
  }
  if (length > kMaxIterations)
    return c.fail("I0002", "the scan runs " + std::to_string(length) + " iterations, over " + std::to_string(kMaxIterations) + " (rung unrolls scans at import)"), std::nullopt;
  if (length == 0 && scans_out > 0) return c.fail("I0005", "a scan of length 0: its scan outputs have no type rung can state"), std::nullopt;
  std::vector<std::vector<Value>> scanned(scans_out);
  for (std::uint64_t t = 0; t < length; ++t) {
    std::vector<Value> args = state;
    for (std::size_t j = 0; j < xs.size(); ++j) {
      V s = take(c, xs[j], p.in_axes[j], p.in_reverse[j] ? length - 1 - t : t);
      if (!s) return std::nullopt;
      args.push_back(*s);
    }
    auto outs = import_body(c, body, args, prefix + "body iteration " + std::to_string(t));
    if (!outs) return std::nullopt;
    for (std::size_t j = 0; j < state.size(); ++j) state[j] = (*outs)[j];
    for (std::size_t j = 0; j < scans_out; ++j) scanned[j].push_back((*outs)[state.size() + j]);
  }
  std::vector<Value> ys;
  for (std::size_t j = 0; j < scans_out; ++j) {
    auto& parts = scanned[j];
    if (p.out_reverse[j]) std::reverse(parts.begin(), parts.end());
    auto axis = c.axis(p.out_axes[j], parts[0].rank() + 1, "scan_output_axes[" + std::to_string(j) + "]");
    if (!axis) return std::nullopt;
    V y = stack(c, parts, static_cast<std::size_t>(*axis));
    if (!y) return std::nullopt;
    ys.push_back(*y);
  }
  return std::make_pair(std::move(state), std::move(ys));
}

// Per-input axes or directions: an attribute of `count` values (each checked by `ok`), else the default.
std::optional<std::vector<std::int64_t>> per_input(NodeCtx& c, const char* name, std::size_t count, std::int64_t dflt) {
  auto v = c.attr_ints(name);
  if (c.attr_error()) return std::nullopt;
  if (!v) return std::vector<std::int64_t>(count, dflt);
  if (v->size() != count) return c.fail("I0005", std::string(name) + " has " + std::to_string(v->size()) + " values, for " + std::to_string(count)), std::nullopt;
  return v;
}

bool scan(NodeCtx& c) {
  const auto* body = graph_attr(c, "body");
  if (!body) return false;
  if (!c.has_attr("num_scan_inputs")) return c.fail("I0005", "the required attribute \"num_scan_inputs\" is missing");
  std::int64_t ns = c.attr_int("num_scan_inputs", 0);
  if (c.attr_error()) return false;
  bool batched = c.opset() < 9;  // Scan 8: sequence_lens first, a batch axis 0, the scan axis 1
  std::size_t first = batched ? 1 : 0;
  if (batched && c.has(0)) return c.fail("I0005", "sequence_lens (input 0) is not supported: every sequence must run the full length");
  std::size_t ins = c.input_count() < first ? 0 : c.input_count() - first;
  if (ns < 1 || static_cast<std::uint64_t>(ns) > ins) return c.fail("I0005", "num_scan_inputs " + std::to_string(ns) + " with " + std::to_string(ins) + " inputs");
  auto n_scan = static_cast<std::size_t>(ns), n_state = ins - n_scan;
  if (c.results().size() < n_state) return c.fail("I0005", "the node has fewer outputs than states");
  std::size_t n_out = c.results().size() - n_state;
  if (static_cast<std::size_t>(body->output_size()) != n_state + n_out)
    return c.fail("I0005", "the body has " + std::to_string(body->output_size()) + " outputs; the node has " + std::to_string(c.results().size()));
  for (std::size_t i = first; i < c.input_count(); ++i)
    if (!c.has(i)) return c.fail("I0005", "input " + std::to_string(i) + " is required");
  std::vector<Value> state, xs;
  for (std::size_t i = 0; i < n_state; ++i) state.push_back(c.in(first + i));
  for (std::size_t j = 0; j < n_scan; ++j) xs.push_back(c.in(first + n_state + j));
  ScanPlan p;
  std::optional<std::vector<std::int64_t>> in_axes, in_dirs, out_axes, out_dirs;
  if (batched) {
    in_dirs = per_input(c, "directions", n_scan, 0);
    in_axes = std::vector<std::int64_t>(n_scan, 0);
    out_axes = std::vector<std::int64_t>(n_out, 0);
    out_dirs = std::vector<std::int64_t>(n_out, 0);
  } else {
    in_axes = per_input(c, "scan_input_axes", n_scan, 0);
    in_dirs = in_axes ? per_input(c, "scan_input_directions", n_scan, 0) : std::nullopt;
    out_axes = in_dirs ? per_input(c, "scan_output_axes", n_out, 0) : std::nullopt;
    out_dirs = out_axes ? per_input(c, "scan_output_directions", n_out, 0) : std::nullopt;
  }
  if (!in_dirs || !out_dirs) return false;
  for (std::size_t j = 0; j < n_scan; ++j) {
    std::size_t rank = xs[j].rank() - (batched && xs[j].rank() > 0 ? 1 : 0);
    if (batched && xs[j].rank() < 2) return c.fail("I0005", "a Scan 8 scan input must be [batch, sequence, ...], got " + xs[j].type.to_string());
    auto a = c.axis((*in_axes)[j], rank, "scan_input_axes[" + std::to_string(j) + "]");
    if (!a) return false;
    p.in_axes.push_back(static_cast<std::size_t>(*a));
    if ((*in_dirs)[j] != 0 && (*in_dirs)[j] != 1) return c.fail("I0005", "a scan direction must be 0 or 1, got " + std::to_string((*in_dirs)[j]));
    p.in_reverse.push_back((*in_dirs)[j] == 1);
  }
  for (std::size_t j = 0; j < n_out; ++j) {
    if ((*out_dirs)[j] != 0 && (*out_dirs)[j] != 1) return c.fail("I0005", "a scan direction must be 0 or 1, got " + std::to_string((*out_dirs)[j]));
    p.out_reverse.push_back((*out_dirs)[j] == 1);
    p.out_axes.push_back((*out_axes)[j]);  // checked against the stacked rank once the body has run
  }
  if (!batched) {
    auto r = scan_run(c, *body, state, xs, p, n_out, "");
    if (!r) return false;
    for (std::size_t i = 0; i < n_state; ++i) c.set(i, r->first[i]);
    for (std::size_t j = 0; j < n_out; ++j) c.set(n_state + j, r->second[j]);
    return true;
  }
  // Scan 8: each batch element on its own, the results stacked along the batch axis.
  const Dim& b = xs[0].type.shape[0];
  if (!b.is_static()) return c.fail("I0012", "the batch axis has the symbolic dim " + b.name());
  if (b.extent() > kMaxIterations) return c.fail("I0002", "a batch of " + std::to_string(b.extent()) + " (rung unrolls scans at import)");
  std::vector<std::vector<Value>> finals(n_state), outs(n_out);
  for (std::uint64_t k = 0; k < b.extent(); ++k) {
    std::vector<Value> sk, xk;
    for (const auto& s : state) {
      if (s.rank() == 0 || !s.type.shape[0].is_static() || s.type.shape[0].extent() != b.extent())
        return c.fail("I0005", "a Scan 8 state must be [batch, ...], got " + s.type.to_string());
      V t = take(c, s, 0, k);
      if (!t) return false;
      sk.push_back(*t);
    }
    for (const auto& x : xs) {
      if (!x.type.shape[0].is_static() || x.type.shape[0].extent() != b.extent())
        return c.fail("I0005", "the scan inputs' batch extents differ");
      V t = take(c, x, 0, k);
      if (!t) return false;
      xk.push_back(*t);
    }
    auto r = scan_run(c, *body, sk, xk, p, n_out, "batch " + std::to_string(k) + " ");
    if (!r) return false;
    for (std::size_t i = 0; i < n_state; ++i) finals[i].push_back(r->first[i]);
    for (std::size_t j = 0; j < n_out; ++j) outs[j].push_back(r->second[j]);
  }
  if (b.extent() == 0) return c.fail("I0005", "a Scan 8 batch of 0");
  for (std::size_t i = 0; i < n_state; ++i) {
    V y = stack(c, finals[i], 0);
    if (!y) return false;
    c.set(i, *y);
  }
  for (std::size_t j = 0; j < n_out; ++j) {
    V y = stack(c, outs[j], 0);
    if (!y) return false;
    c.set(n_state + j, *y);
  }
  return true;
}

}  // namespace

void add_control_handlers(std::vector<Handler>& h) {
  h.push_back({"If", 1, kMaxOpset, if_op, "the branch the condition picks, imported inline (the condition known at import)"});
  h.push_back({"Loop", 1, kMaxOpset, loop, "the body imported once per iteration (trip count and conditions known at import); scan outputs: reshape, concat"});
  h.push_back({"Scan", 8, 8, scan, "per batch element, the body imported once per step: slice, reshape, concat"});
  h.push_back({"Scan", 9, kMaxOpset, scan, "the body imported once per step: slice, reshape, concat"});
}

}  // namespace rung::onnx_import
