#include "runtime/host_walk.h"

#include <set>
#include <unordered_map>

#include "ir/graph/walk.h"
#include "ops/evaluate.h"
#include "runtime/in_place.h"
#include "runtime/memory_meter.h"
#include "runtime/walk_common.h"

namespace rung::runtime {

namespace {

thread_local HandOver* current_hand_over = nullptr;
thread_local const NodeSpans* current_node_spans = nullptr;

class HostWalk {
 public:
  HostWalk(const Graph& g, DiagnosticSink& d, const WalkOptions& o) : g_(g), diags_(d), opts_(o) {}

  // `hand_over`: arguments owned by this run (moved in, freed after their last use).
  std::optional<std::vector<ops::HostTensor>> run(RegionId rid, std::span<const ops::HostTensor> args, int depth,
                                                  HandOver* hand_over = nullptr) {
    const Region& r = g_.region(rid);
    if (!check_region_entry(r, args.size(), depth, opts_.max_call_depth, diags_)) return std::nullopt;
    DimBindings bindings;
    std::unordered_map<NodeId, std::vector<ops::HostTensor>> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!check_argument(g_, r, i, args[i].dtype(), args[i].shape(), bindings, diags_)) return std::nullopt;
      bool owned = hand_over && hand_over->owned.at(i);
      std::vector<ops::HostTensor> arg;  // borrowed ones are shared, not copied (HostTensor::share)
      arg.push_back(owned ? std::move(hand_over->args->at(i)) : args[i].share());
      values[r.params[i]] = std::move(arg);
    }

    std::set<NodeId> params;  // borrowed from the caller: not metered, not freed here
    for (std::size_t i = 0; i < r.params.size(); ++i)
      if (!(hand_over && hand_over->owned.at(i))) params.insert(r.params[i]);
    std::vector<NodeId> order = nodes_in_region(g_, r);
    // Remaining uses per node inside this region, so intermediates are freed early.
    std::unordered_map<NodeId, std::size_t> uses = uses_in_region(g_, r, order);

    for (NodeId n : order) {
      if (values.count(n)) continue;  // a parameter
      const Node& node = g_.node(n);
      std::optional<std::size_t> reuse;  // the operand whose storage becomes the result
      if (node.outputs.size() == 1) {
        std::vector<OperandShape> shapes;
        for (const auto& in : node.inputs) {
          const auto& t = values.at(in.node).at(in.output);
          std::size_t here = 0;
          for (const auto& other : node.inputs) here += other.node == in.node;
          shapes.push_back({t.dtype(), t.shape(), uses.at(in.node) == here && !params.count(in.node)});
        }
        reuse = in_place_operand(node.opcode, shapes, node.outputs[0].dtype);
      }
      std::vector<ops::HostTensor> inputs;
      if (!reuse) {
        inputs.reserve(node.inputs.size());
        for (const auto& in : node.inputs) inputs.push_back(values.at(in.node).at(in.output).share());
      }

      std::optional<std::vector<ops::HostTensor>> out;
      if (reuse) {
        out = in_place(n, *reuse, values);
        if (!out) {
          diags_.last().note("while evaluating " + describe_node(g_, n) + " in `" + r.name + "` (in place)");
          locate_failure(node, diags_);
          return std::nullopt;
        }
      } else if (node.opcode == opcode::kConst) {
        out.emplace();
        out->push_back(constant_value(node));
      } else if (node.opcode == opcode::kCall) {
        if (!(opts_.call && opts_.call(g_, node, inputs, diags_, out))) {
          RegionId callee = *g_.find_region(node.attrs.at("callee").as<Hash256>());
          out = run(callee, inputs, depth + 1);
        }
        if (!out) return std::nullopt;
      } else {
        std::size_t before = diags_.all().size();
        AttrMap scratch;
        const AttrMap& attrs = bind_shape_attrs(node.attrs, bindings, scratch);
        if (opts_.evaluate) {
          const ops::OpDef* def = ops::op_registry().find(node.opcode);
          if (!def) {
            diags_.error("N0010", "unknown op `" + node.opcode + "`");
            return std::nullopt;
          }
          out = opts_.evaluate(*def, inputs, attrs, diags_);
        } else {
          ops::EvalOptions eo;
          eo.tier = opts_.tier;
          out = ops::evaluate(node.opcode, inputs, attrs, diags_, eo);
        }
        if (!out) {
          if (diags_.all().size() > before) {
            diags_.last().note("while evaluating " + describe_node(g_, n) + " in `" + r.name + "`");
            locate_failure(node, diags_);
          }
          return std::nullopt;
        }
      }
      if (!check_result_count(g_, n, out->size(), diags_)) return std::nullopt;
      for (std::size_t i = 0; i < out->size(); ++i)
        if (!check_result(g_, n, i, (*out)[i].dtype(), (*out)[i].shape(), bindings, diags_)) {
          diags_.last().note("the graph's declared types and the op's shape rule disagree; the graph is inconsistent");
          return std::nullopt;
        }
      if (!reuse)  // in place: the operand's bytes, counted since it was made
        for (const auto& t : *out) meter_allocate(t);
      values[n] = std::move(*out);
      for (std::size_t k = 0; k < node.inputs.size(); ++k) {
        const auto& in = node.inputs[k];
        if (--uses[in.node] != 0) continue;
        if (!params.count(in.node)) {
          auto& vs = values.at(in.node);
          for (std::size_t o = 0; o < vs.size(); ++o)
            if (!(reuse && node.inputs[*reuse].node == in.node && node.inputs[*reuse].output == o)) meter_release(vs[o]);
        }
        values.erase(in.node);
      }
    }
    std::vector<ops::HostTensor> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output).share());
    // What the region still holds goes with it (parameters are the caller's).
    for (const auto& [n, vs] : values)
      if (!params.count(n))
        for (const auto& t : vs) meter_release(t);
    return results;
  }

 private:
  // `node` with its result written over operand `k`'s storage, a chunk of rows at a time
  // (in_place.h): each chunk's rows of the operands split by rows are copied out, the op
  // runs on them, and the result rows replace the rows just read.
  std::optional<std::vector<ops::HostTensor>> in_place(NodeId n, std::size_t k,
                                                       std::unordered_map<NodeId, std::vector<ops::HostTensor>>& values) {
    const Node& node = g_.node(n);
    ops::HostTensor& target = values.at(node.inputs[k].node).at(node.inputs[k].output);
    const ops::Extents shape = target.shape();
    const std::uint64_t rows = shape[0], row_elems = target.numel() / rows;
    const std::size_t row_bytes = target.bytes().size() / rows;
    const std::uint64_t step = std::max<std::uint64_t>(1, kInPlaceChunkElems / std::max<std::uint64_t>(1, row_elems));
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    std::vector<ops::HostTensor> part;
    for (const auto& in : node.inputs) {
      const auto& t = values.at(in.node).at(in.output);
      part.push_back(whole_in_every_chunk(t.shape(), shape) ? t : ops::HostTensor());
    }
    for (std::uint64_t lo = 0; lo < rows; lo += step) {
      std::uint64_t hi = std::min(rows, lo + step);
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        const auto& t = values.at(node.inputs[i].node).at(node.inputs[i].output);
        if (whole_in_every_chunk(t.shape(), shape)) continue;
        ops::Extents ext = t.shape();
        const std::size_t its_row = t.bytes().size() / ext[0];  // may broadcast along other dims
        ext[0] = hi - lo;
        auto b = t.bytes().subspan(lo * its_row, (hi - lo) * its_row);
        part[i] = ops::HostTensor(t.dtype(), std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end()));
      }
      std::optional<std::vector<ops::HostTensor>> res;
      if (opts_.evaluate) {
        res = opts_.evaluate(*def, part, node.attrs, diags_);
      } else {
        ops::EvalOptions eo;
        eo.tier = opts_.tier;
        res = ops::evaluate(*def, part, node.attrs, diags_, eo);
      }
      if (!res) return std::nullopt;
      if (res->size() != 1 || res->front().bytes().size() != (hi - lo) * row_bytes) {
        diags_.error("R0003", describe_node(g_, n) + " produced a chunk of another size than its operand's rows");
        return std::nullopt;
      }
      std::copy(res->front().bytes().begin(), res->front().bytes().end(),
                target.bytes().begin() + static_cast<std::ptrdiff_t>(lo * row_bytes));
    }
    std::vector<ops::HostTensor> out;
    out.push_back(std::move(target));
    return out;
  }

  const Graph& g_;
  DiagnosticSink& diags_;
  const WalkOptions& opts_;
};

}  // namespace

ScopedHandOver::ScopedHandOver(HandOver* h) : previous_(current_hand_over) { current_hand_over = h; }
ScopedHandOver::~ScopedHandOver() { current_hand_over = previous_; }

ScopedNodeSpans::ScopedNodeSpans(const NodeSpans* spans) : previous_(current_node_spans) { current_node_spans = spans; }
ScopedNodeSpans::~ScopedNodeSpans() { current_node_spans = previous_; }

void locate_failure(const Node& n, DiagnosticSink& diags) {
  if (!current_node_spans || diags.empty() || diags.last().primary_label()) return;
  auto it = current_node_spans->find(n.hash);
  if (it != current_node_spans->end() && it->second.valid()) diags.last().primary(it->second, "this `" + n.opcode + "` failed");
}

std::optional<std::vector<ops::HostTensor>> walk_region(const Graph& g, RegionId region,
                                                        std::span<const ops::HostTensor> args, DiagnosticSink& diags,
                                                        const WalkOptions& options) {
  HandOver* h = current_hand_over;
  if (h && !h->taken && h->args && h->args->data() == args.data() && h->args->size() == args.size() &&
      h->owned.size() == args.size()) {
    h->taken = true;
    return HostWalk(g, diags, options).run(region, args, 0, h);
  }
  return HostWalk(g, diags, options).run(region, args, 0);
}

}  // namespace rung::runtime
