#include "plan/split_policy.h"

#include <memory>

#include "plan/row_split.h"
#include "plan/tiling.h"

namespace rung::plan {
namespace {

struct Tiler {
  Graph g;
  std::uint64_t limit;
  // Per region and the extents its symbolic dims had: the tiled, specialised copy.
  std::map<std::pair<RegionId, std::map<std::string, std::uint64_t>>, RegionId> tiled;
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
    return runtime::SplitPolicy([tiler](const Graph&, RegionId r, std::span<const ops::HostTensor> args, DiagnosticSink& run_diags)
                                    -> std::optional<runtime::ComputeSplit> {
      // Symbolic dims (`B`) bound by this run's arguments, as the executor binds them.
      std::map<std::string, std::uint64_t> dims;
      const Region& region = tiler->g.region(r);
      for (std::size_t i = 0; i < region.params.size() && i < args.size(); ++i) {
        const TensorType& t = tiler->g.node(region.params[i]).outputs.at(0);
        for (std::size_t d = 0; d < t.shape.size() && d < args[i].rank(); ++d)
          if (!t.shape[d].is_static()) dims.emplace(t.shape[d].name(), args[i].shape()[d]);
      }
      auto key = std::make_pair(r, dims);
      auto it = tiler->tiled.find(key);
      if (it == tiler->tiled.end()) {
        std::size_t split = 0;
        auto t = tile_region(tiler->g, r, tiler->limit, split, run_diags, dims);
        if (!t) return std::nullopt;
        it = tiler->tiled.emplace(key, *t).first;
      }
      return runtime::ComputeSplit{&tiler->g, it->second, 0, 0, {}};
    });
  }
  return runtime::SplitPolicy{};
}

}  // namespace rung::plan
