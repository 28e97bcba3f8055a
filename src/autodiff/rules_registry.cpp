#include <deque>
#include <mutex>

#include "autodiff/rules_common.h"
#include "base/check.h"
#include "ops/registry.h"

namespace rung::autodiff {

void define_rule(std::string_view op, GradFn fn) {
  static std::deque<ops::GradientRule> rules;  // stable addresses for the registry's pointers
  const ops::OpDef* def = ops::op_registry().find(op);
  RUNG_CHECK(def != nullptr, "a gradient rule names an op the registry does not have");
  rules.emplace_back(std::move(fn));
  ops::op_registry().set_gradient(def->id, &rules.back());
}

void ensure_gradient_rules() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_elementwise_rules();
    register_linalg_rules();
    register_reduce_rules();
    register_nn_rules();
  });
}

}  // namespace rung::autodiff
