#include "passes/passes.h"

namespace rung {

std::vector<std::unique_ptr<Pass>> all_passes() {
  std::vector<std::unique_ptr<Pass>> v;
  v.push_back(make_inline_pass());
  v.push_back(make_fold_pass());
  v.push_back(make_simplify_pass());
  v.push_back(make_layout_pass());
  v.push_back(make_fuse_pass());
  v.push_back(make_dce_pass());
  v.push_back(make_mixed_bf16_pass());
  return v;
}

std::unique_ptr<Pass> make_pass(std::string_view name) {
  for (auto& p : all_passes())
    if (p->name() == name) return std::move(p);
  return nullptr;
}

std::vector<std::string> default_pipeline() { return {"inline", "fold", "simplify", "layout", "fuse", "dce"}; }

}  // namespace rung
