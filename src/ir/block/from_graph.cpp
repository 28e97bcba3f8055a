#include "ir/block/from_graph.h"

namespace rung::block {

Program program_from_graph(Graph g, std::string module, Determinism determinism) {
  Program p;
  p.module = std::move(module);
  p.determinism = std::move(determinism);
  for (const auto& [name, rid] : g.exports()) {
    const Region& r = g.region(rid);
    Function f;
    f.name = name;
    f.exported = true;
    Stmt compute{.kind = StmtKind::compute, .region = r.hash};
    for (NodeId pn : r.params) {
      const Node& param = g.node(pn);
      f.params.push_back(static_cast<SlotId>(f.slots.size()));
      compute.args.push_back(f.params.back());
      f.slots.push_back({param.attrs.at("name").as<std::string>(), param.outputs.at(0), false});
    }
    for (std::size_t i = 0; i < r.results.size(); ++i) {
      f.results.push_back(static_cast<SlotId>(f.slots.size()));
      compute.results.push_back(f.results.back());
      const ValueRef& v = r.results[i];
      // Named as the front end names a function's results (`result`, else `result.0`, ...),
      // so an output has one name whether the program ran from its source or its .keg.
      std::string result = r.results.size() == 1 ? std::string("result") : "result." + std::to_string(i);
      f.slots.push_back({std::move(result), g.node(v.node).outputs.at(v.output), false});
    }
    f.body.push_back(std::move(compute));
    f.body.push_back(Stmt{.kind = StmtKind::ret, .args = f.results});
    p.functions.push_back(std::move(f));
  }
  p.graph = std::move(g);
  return p;
}

}  // namespace rung::block
