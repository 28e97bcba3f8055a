#include "plan/split_policy.h"

#include <memory>

#include "plan/row_split.h"
#include "plan/tiling.h"

namespace rung::plan {
namespace {

struct Tiler {
  Graph g;
  std::uint64_t limit;
  std::map<RegionId, RegionId> tiled;
};

}  // namespace

std::optional<runtime::SplitPolicy> make_split_policy(const Graph& g, const PlanOptions& o, DiagnosticSink& diags) {
  if (o.stream_rows && o.binding_limit) {
    diags.error("L0011", "streaming and a binding limit cannot be executed together yet: choose --stream or --binding-limit");
    return std::nullopt;
  }
  if (o.stream_rows) {
    auto chunker = std::make_shared<RowChunker>(g, *o.stream_rows);
    return runtime::SplitPolicy([chunker](const Graph&, RegionId r, std::span<const ops::HostTensor> args, DiagnosticSink&)
                                    -> std::optional<runtime::ComputeSplit> {
      std::vector<std::vector<std::uint64_t>> shapes;
      for (const auto& a : args) shapes.emplace_back(a.shape().begin(), a.shape().end());
      auto d = chunker->decide(r, shapes);
      return runtime::ComputeSplit{&chunker->graph(), d.region, d.rows, d.chunk, d.split};
    });
  }
  if (o.binding_limit) {
    auto tiler = std::make_shared<Tiler>(Tiler{g, o.binding_limit, {}});
    return runtime::SplitPolicy([tiler](const Graph&, RegionId r, std::span<const ops::HostTensor>, DiagnosticSink& run_diags)
                                    -> std::optional<runtime::ComputeSplit> {
      auto it = tiler->tiled.find(r);
      if (it == tiler->tiled.end()) {
        std::size_t split = 0;
        auto t = tile_region(tiler->g, r, tiler->limit, split, run_diags);
        if (!t) return std::nullopt;
        it = tiler->tiled.emplace(r, *t).first;
      }
      return runtime::ComputeSplit{&tiler->g, it->second, 0, 0, {}};
    });
  }
  return runtime::SplitPolicy{};
}

}  // namespace rung::plan
