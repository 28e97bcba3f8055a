// dce: drop nodes and regions that no export reaches. Exists because rewrites leave the
// nodes they replaced behind in the store; the fingerprint never counted them, but .keg
// files, plans and kernels would.
#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {
class DcePass final : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  std::string_view summary() const override { return "remove nodes and regions that no export reaches"; }
  Graph run(const Graph& in, PassContext&) override { return rebuild(in, {}); }
};
}  // namespace

std::unique_ptr<Pass> make_dce_pass() { return std::make_unique<DcePass>(); }
}  // namespace rung
