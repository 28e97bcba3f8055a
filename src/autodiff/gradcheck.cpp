#include "autodiff/gradcheck.h"

#include <cmath>
#include <cstdio>

#include "autodiff/autodiff.h"
#include "autodiff/emitter.h"
#include "autodiff/f64_reference.h"
#include "ops/evaluate.h"
#include "ir/graph/builder.h"
#include "ops/registry.h"

namespace rung::autodiff {
namespace {

bool is_float(DType d) { return dtype_info(d).is_float; }

std::string param_name(const Graph& g, NodeId p) {
  auto it = g.node(p).attrs.find("name");
  return it != g.node(p).attrs.end() && it->second.is<std::string>() ? it->second.as<std::string>() : "param";
}

std::vector<std::uint64_t> sample(std::uint64_t n, std::uint64_t max) {
  std::vector<std::uint64_t> out;
  if (n <= max) {
    for (std::uint64_t i = 0; i < n; ++i) out.push_back(i);
  } else {
    for (std::uint64_t k = 0; k < max; ++k) out.push_back(k * (n - 1) / (max - 1));
  }
  return out;
}

}  // namespace

bool GradcheckReport::ok() const {
  if (!forward_ok) return false;
  for (const auto& i : inputs)
    if (!i.ok) return false;
  return true;
}

std::string GradcheckReport::table(const GradcheckOptions& o) const {
  char line[256];
  std::string out = "gradcheck " + subject + "\n";
  std::snprintf(line, sizeof line, "  binary64 central differences, step %.0e; element ok when |analytic - numeric| <= %.0e * (1 + |numeric|)\n",
                o.step, o.tolerance);
  out += line;
  out += "  input            checked/elements   max abs err   max rel err   status\n";
  for (const auto& i : inputs) {
    std::snprintf(line, sizeof line, "  %-16s %7llu/%-10llu %11.3e   %11.3e   %s", i.name.c_str(),
                  static_cast<unsigned long long>(i.checked), static_cast<unsigned long long>(i.elements), i.max_abs, i.max_rel,
                  i.ok ? "ok" : "FAIL");
    out += line;
    if (!i.ok) {
      std::snprintf(line, sizeof line, " (element %llu: analytic %.9g, numeric %.9g)", static_cast<unsigned long long>(i.worst),
                    i.analytic, i.numeric);
      out += line;
    }
    out += "\n";
  }
  if (forward_error) {
    std::snprintf(line, sizeof line, "  forward: op kernel vs binary64 path, max rel err %.3e (limit %.0e)  %s\n", *forward_error,
                  o.forward_tolerance, forward_ok ? "ok" : "FAIL");
    out += line;
  }
  out += ok() ? "  result: ok\n" : "  result: FAIL\n";
  return out;
}

std::optional<GradcheckReport> gradcheck_region(Graph& g, RegionId f, const std::vector<ops::HostTensor>& args,
                                                const std::vector<std::size_t>& wrt, const GradcheckOptions& o,
                                                DiagnosticSink& diags) {
  const Region fr = g.region(f);  // copy: g grows
  auto forward = run_region_f64(g, f, args, diags);
  if (!forward) return std::nullopt;

  // loss = sum_r sum(y_r * w_r), or sum(y_r^2) / 2 for results of symbolic shape.
  Emitter e(g);
  std::vector<ValueRef> params;
  for (std::size_t i = 0; i < fr.params.size(); ++i)
    params.push_back(e.builder().param(param_name(g, fr.params[i]), static_cast<std::int64_t>(i), g.node(fr.params[i]).outputs[0]));
  std::vector<ValueRef> ys = e.builder().call(f, params);
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::optional<ValueRef> loss;
  AttrMap all{{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}};
  for (std::size_t r = 0; r < ys.size(); ++r) {
    const TensorType t = e.type(ys[r]);
    if (!is_float(t.dtype)) continue;
    bool fixed = true;
    for (const auto& d : t.shape) fixed = fixed && d.is_static();
    ValueRef term;
    if (fixed) {
      std::vector<double> w((*forward)[r].numel());
      for (auto& x : w) x = u(rng);
      term = e.op("sum", {e.op("mul", {ys[r], e.constant(t, w)})}, all);
    } else {
      term = e.op("mul", {e.op("sum", {e.op("square", {ys[r]})}, all), e.scalar(t.dtype, 0.5)});
    }
    if (loss && e.type(term).dtype != e.type(*loss).dtype) term = e.op("cast", {term}, {{"to", e.type(*loss).dtype}});
    loss = loss ? e.op("add", {*loss, term}) : term;
  }
  if (!loss) {
    diags.error("D0011", "gradcheck of `" + fr.name + "`: it has no floating-point result to differentiate");
    return std::nullopt;
  }
  RegionId wrapper = e.builder().region(fr.name + ".gradcheck_loss", params, {*loss});
  auto grad = differentiate(g, wrapper, wrt, diags);
  if (!grad) return std::nullopt;
  auto analytic = run_region_f64(g, *grad, args, diags);
  if (!analytic) return std::nullopt;

  std::vector<ops::HostTensor> wide;
  for (const auto& a : args) wide.push_back(widen(a));
  auto loss_at = [&](const std::vector<ops::HostTensor>& x) -> std::optional<double> {
    auto out = run_region_f64(g, wrapper, x, diags);
    if (!out) return std::nullopt;
    return (*out)[0].load_f64(0);
  };

  GradcheckReport rep;
  rep.subject = fr.name;
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    std::size_t p = wrt[k];
    InputCheck ic;
    ic.name = param_name(g, fr.params[p]);
    ic.elements = wide[p].numel();
    const ops::HostTensor& a = (*analytic)[1 + k];
    for (std::uint64_t i : sample(ic.elements, o.max_elements)) {
      auto plus = wide, minus = wide;
      double x = wide[p].load_f64(i);
      plus[p].store_f64(i, x + o.step);
      minus[p].store_f64(i, x - o.step);
      auto lp = loss_at(plus), lm = loss_at(minus);
      if (!lp || !lm) return std::nullopt;
      double numeric = (*lp - *lm) / (2 * o.step), got = a.load_f64(i);
      double err = std::fabs(got - numeric), rel = err / (1 + std::fabs(numeric));
      if (std::isnan(got) != std::isnan(numeric) || (!std::isnan(rel) && rel > o.tolerance)) ic.ok = false;
      if (std::isnan(got) && !std::isnan(numeric)) rel = INFINITY;
      ++ic.checked;
      if (rel > ic.max_rel || ic.checked == 1) {
        ic.max_rel = rel;
        ic.worst = i;
        ic.analytic = got;
        ic.numeric = numeric;
      }
      ic.max_abs = std::max(ic.max_abs, err);
    }
    rep.inputs.push_back(ic);
  }
  return rep;
}

std::optional<std::vector<ops::HostTensor>> generate_args(const Graph& g, const Region& r,
                                                          const std::map<std::string, std::uint64_t>& dims,
                                                          std::uint64_t default_dim, std::uint64_t seed, std::int64_t int_max,
                                                          DiagnosticSink& diags) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<ops::HostTensor> args;
  for (NodeId p : r.params) {
    const TensorType& t = g.node(p).outputs[0];
    ops::Extents ext;
    for (const auto& d : t.shape) {
      if (d.is_static()) {
        ext.push_back(d.extent());
      } else if (auto it = dims.find(d.name()); it != dims.end()) {
        ext.push_back(it->second);
      } else if (default_dim > 0) {
        ext.push_back(default_dim);
      } else {
        diags.error("D0014", "`" + r.name + "` has the symbolic dim " + d.name() + "; bind it with --dim " + d.name() + "=N");
        return std::nullopt;
      }
    }
    ops::HostTensor h(t.dtype, ext);
    for (std::uint64_t i = 0; i < h.numel(); ++i) {
      if (is_float(t.dtype)) h.store_f64(i, u(rng));
      else if (t.dtype == DType::boolean) h.store_bool(i, rng() % 2 == 0);
      else h.store_int(i, rng() % static_cast<std::uint64_t>(int_max + 1));
    }
    args.push_back(std::move(h));
  }
  return args;
}

std::optional<GradcheckReport> verify_custom_gradient(Graph& g, RegionId f, RegionId grad, const GradcheckOptions& o,
                                                      DiagnosticSink& diags) {
  const Region fr = g.region(f), gr = g.region(grad);  // copies: g grows
  auto type_at = [&](ValueRef v) { return g.node(v.node).outputs[v.output]; };
  std::vector<std::size_t> wrt;
  for (std::size_t i = 0; i < fr.params.size(); ++i)
    if (is_float(g.node(fr.params[i]).outputs[0].dtype)) wrt.push_back(i);
  std::string why;
  if (gr.params.size() != fr.params.size() + fr.results.size())
    why = "takes " + std::to_string(gr.params.size()) + " parameters; it must take the op's " + std::to_string(fr.params.size()) +
          " followed by one cotangent per result (" + std::to_string(fr.results.size()) + ")";
  else if (gr.results.size() != wrt.size())
    why = "returns " + std::to_string(gr.results.size()) + " values; it must return one cotangent per floating-point parameter (" +
          std::to_string(wrt.size()) + ")";
  for (std::size_t k = 0; why.empty() && k < wrt.size(); ++k) {
    TensorType want = g.node(fr.params[wrt[k]]).outputs[0], got = type_at(gr.results[k]);
    if (!(want == got)) why = "returns " + got.to_string() + " as cotangent " + std::to_string(k) + ", the parameter is " + want.to_string();
  }
  if (!why.empty()) {
    diags.error("D0021", "the gradient `" + gr.name + "` of custom op `" + fr.name + "` " + why);
    return std::nullopt;
  }
  // A wrapper that calls the op as a custom op (so differentiate uses `grad`).
  GraphBuilder b(g);
  std::vector<ValueRef> params;
  for (std::size_t i = 0; i < fr.params.size(); ++i)
    params.push_back(b.param(param_name(g, fr.params[i]), static_cast<std::int64_t>(i), g.node(fr.params[i]).outputs[0]));
  std::vector<TensorType> result_types;
  for (const auto& v : fr.results) result_types.push_back(type_at(v));
  auto ys = b.op_multi(std::string(opcode::kCall), params, result_types,
                       {{"callee", g.region(f).hash}, {kCustomGradAttr, g.region(grad).hash}});
  RegionId wrapper = b.region(fr.name, params, ys);
  auto args = generate_args(g, fr, {}, 2, o.seed, 1, diags);
  if (!args) return std::nullopt;
  std::vector<std::size_t> all(wrt.size());
  for (std::size_t k = 0; k < wrt.size(); ++k) all[k] = wrt[k];
  return gradcheck_region(g, wrapper, *args, all, o, diags);
}

std::optional<GradcheckReport> gradcheck_op(const OpCase& c, const GradcheckOptions& o, DiagnosticSink& diags) {
  const ops::OpDef* def = ops::op_registry().find(c.op);
  if (!def) {
    diags.error("D0012", "unknown op `" + c.op + "`");
    return std::nullopt;
  }
  std::mt19937_64 rng(o.seed + 1);
  std::uniform_real_distribution<double> real(-1.5, 1.5), positive(0.5, 1.5), unit(-0.9, 0.9);
  Graph g;
  Emitter e(g);
  std::vector<ValueRef> params;
  std::vector<ops::HostTensor> args;
  std::vector<std::size_t> wrt;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& in = c.inputs[i];
    ops::HostTensor t = in.value ? *in.value : ops::HostTensor(in.dtype, in.shape);
    using K = OpCase::Input::Kind;
    for (std::uint64_t j = 0; j < t.numel() && in.kind != K::given; ++j) {
      if (in.kind == K::real) t.store_f64(j, real(rng));
      else if (in.kind == K::positive) t.store_f64(j, positive(rng));
      else if (in.kind == K::unit) t.store_f64(j, unit(rng));
      else if (in.kind == K::index) t.store_int(j, rng() % std::max<std::uint64_t>(in.bound, 1));
      else t.store_bool(j, rng() % 2 == 0);
    }
    if (is_float(t.dtype()) && in.kind != K::given) wrt.push_back(i);
    std::string name = i < def->operands.size() ? def->operands[i].name : def->operands.back().name + std::to_string(i);
    params.push_back(e.builder().param(name, static_cast<std::int64_t>(i), t.type()));
    args.push_back(std::move(t));
  }
  std::vector<TensorType> types;
  for (const auto& a : args) types.push_back(a.type());
  std::vector<ValueRef> ys = e.op_multi(c.op, params, c.attrs);
  RegionId f = e.builder().region(c.label.empty() ? c.op : c.label, params, ys);

  auto rep = gradcheck_region(g, f, args, wrt, o, diags);
  if (!rep) return std::nullopt;
  // The f64 path's forward against the op's own kernel.
  ops::EvalOptions eo;
  eo.tier = ops::Tier::prod;
  auto native = ops::evaluate(*def, args, c.attrs, diags, eo);
  auto wide = run_region_f64(g, f, args, diags);
  if (!native || !wide) return std::nullopt;
  double worst = 0;
  for (std::size_t r = 0; r < native->size(); ++r) {
    if (!is_float((*native)[r].dtype())) continue;
    double scale = 1;
    for (std::uint64_t i = 0; i < (*wide)[r].numel(); ++i) scale = std::max(scale, std::fabs((*wide)[r].load_f64(i)));
    for (std::uint64_t i = 0; i < (*wide)[r].numel(); ++i) {
      double d = std::fabs((*native)[r].load_f64(i) - (*wide)[r].load_f64(i)) / scale;
      if (std::isnan(d)) d = std::isnan((*native)[r].load_f64(i)) && std::isnan((*wide)[r].load_f64(i)) ? 0 : INFINITY;
      worst = std::max(worst, d);
    }
  }
  rep->forward_error = worst;
  rep->forward_ok = worst <= o.forward_tolerance;
  return rep;
}

}  // namespace rung::autodiff
