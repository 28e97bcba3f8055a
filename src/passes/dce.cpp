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
  bool applies(const Graph& g) const override {
    std::vector<RegionId> live = g.reachable_regions();
    if (live.size() != g.region_count()) return true;
    std::vector<bool> reached(g.node_count(), false);
    std::size_t count = 0;
    for (RegionId r : live) {
      auto reach = [&](NodeId n) {
        if (!reached[n]) ++count;
        reached[n] = true;
      };
      for (NodeId p : g.region(r).params) reach(p);
      for (NodeId n : nodes_in_region(g, g.region(r))) reach(n);
    }
    return count != g.node_count();
  }
};
}  // namespace

std::unique_ptr<Pass> make_dce_pass() { return std::make_unique<DcePass>(); }
}  // namespace rung
