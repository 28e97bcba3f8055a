// Custom ops: a pure function whose doc comment says `@grad NAME` is an op with a
// user-written gradient. Calls to it are not inlined like other calls: each call site
// instantiates the op's body and NAME's body as regions at the argument types and emits
//   call(args) {callee = op region, custom_grad = gradient region}
// which autodiff differentiates with the gradient region (autodiff.h, kCustomGradAttr).
// NAME(op's params..., g: op's result type) returns the cotangent of each float parameter
// (a tuple when there are several). In tiers debug and prod the gradient is gradchecked
// against central differences of the op's own forward before it is used (E2410 if it fails).
#include "autodiff/autodiff.h"
#include "autodiff/gradcheck.h"
#include "base/text.h"
#include "frontend/lowerer.h"

namespace rung::frontend {

std::optional<std::string> custom_grad_directive(const ast::FnItem& item) {
  for (std::string_view line : item.doc_comments()) {
    auto at = line.find("@grad");
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + 5);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    std::size_t n = 0;
    while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])) || rest[n] == '_')) ++n;
    return std::string(rest.substr(0, n));
  }
  return std::nullopt;
}

Value Lowerer::call_custom_op(FnInfo& f, const std::string& grad_name, const std::vector<Value>& args, Span at) {
  FnInfo* g = find_fn(grad_name);
  if (!g || g == &f) {
    d_.error("E2411", "custom op `" + f.name + "` names `" + grad_name + "` as its gradient, which is not a function of this module")
        .primary(span(f.item.name()), "declared here");
    return error_value(at);
  }
  if (g->block_mode || g->params.size() != f.params.size() + 1) {
    d_.error("E2411", "the gradient `" + g->name + "` of custom op `" + f.name + "` must be a pure function taking the op's " +
                          std::to_string(f.params.size()) + " parameters and the result's cotangent")
        .primary(span(g->item.name()), "declared here");
    return error_value(at);
  }
  // Fresh parameters at the argument types: the op's region, then the gradient's.
  std::vector<Value> params;
  std::vector<ValueRef> refs, arg_refs;
  for (const auto& a : args) {
    Value p;
    p.ty = a.ty;
    p.span = a.span;
    for (const auto& leaf : a.ty.leaves()) {
      p.refs.push_back(b_.param("p" + std::to_string(refs.size()), static_cast<std::int64_t>(refs.size()), leaf));
      refs.push_back(p.refs.back());
    }
    arg_refs.insert(arg_refs.end(), a.refs.begin(), a.refs.end());
    params.push_back(std::move(p));
  }
  Value body = inline_body(f, params, at);
  if (!body.ok()) return error_value(at);
  RegionId op = b_.region(f.name, refs, body.refs);
  Value cot;
  cot.ty = body.ty;
  cot.span = at;
  std::vector<ValueRef> grad_refs = refs;
  for (const auto& leaf : body.ty.leaves()) {
    cot.refs.push_back(b_.param("g" + std::to_string(grad_refs.size()), static_cast<std::int64_t>(grad_refs.size()), leaf));
    grad_refs.push_back(cot.refs.back());
  }
  std::vector<Value> gargs = params;
  gargs.push_back(cot);
  std::size_t before = d_.error_count();
  Value gbody = call_user(*g, gargs, at, span(g->item.name()));
  if (d_.error_count() > before || !gbody.ok()) return error_value(at);
  RegionId grad = b_.region(g->name, grad_refs, gbody.refs);

  const std::string& tier = prog_.determinism.tier;
  if (tier == "debug" || tier == "prod") {
    auto key = std::make_pair(prog_.graph.region(op).hash, prog_.graph.region(grad).hash);
    if (!verified_.count(key)) {
      autodiff::GradcheckOptions o;
      DiagnosticSink inner;
      auto rep = autodiff::verify_custom_gradient(prog_.graph, op, grad, o, inner);
      if (!rep || !rep->ok()) {
        auto& e = d_.error("E2410", "the gradient `" + g->name + "` of custom op `" + f.name +
                                        "` does not match its forward (gradcheck, tier " + tier + ")");
        e.primary(at, "used here").secondary(span(g->item.name()), "gradient declared here");
        if (rep) e.note(rep->table(o));
        for (const auto& m : inner.all()) e.note("[" + m.code + "] " + m.message);
        return error_value(at);
      }
      verified_.insert(key);
    }
  }
  std::vector<TensorType> types;
  for (const auto& v : body.refs) types.push_back(b_.type_of(v));
  Value v;
  v.span = at;
  v.ty = body.ty;
  v.refs = b_.op_multi(std::string(opcode::kCall), arg_refs, types,
                       {{"callee", prog_.graph.region(op).hash}, {autodiff::kCustomGradAttr, prog_.graph.region(grad).hash}});
  return v;
}

}  // namespace rung::frontend
