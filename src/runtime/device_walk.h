// The device walk: how a device backend (cuda, webgpu) runs a GraphIR region with every
// intermediate resident on the device. The region's arguments are uploaded, its nodes run in
// a topological order as device dispatches (a `const` is uploaded where it stands, a `call`
// runs its callee the same way unless the backend runs it another way, as one fused
// kernel), each value is freed after its last use, and only the results are downloaded.
// Values are held to their declared types as on the host walk (walk_common.h: R0001..R0004);
// a failing node is named in a note.
//
// A device backend derives from DeviceBackend<its device tensor>, whose run_op and
// run_region are this walk, and supplies the hooks: moving a tensor to and from the device,
// one op's dispatch, and optionally its own way with a `call` node and a synchronisation
// point at the end of each region. Counting transfers is the upload and download hooks'
// business.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ir/graph/walk.h"
#include "ops/host_tensor.h"
#include "ops/registry.h"
#include "runtime/op_backend.h"
#include "runtime/walk_common.h"

namespace rung::runtime {

template <typename Value>
class DeviceBackend : public OpBackend {
 public:
  // One op on host tensors: inputs uploaded, dispatched, outputs downloaded.
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) final {
    auto dev = upload_all(inputs, diags);
    if (!dev) return std::nullopt;
    auto out = dispatch(op, *dev, attrs, diags);
    if (!out) return std::nullopt;
    return download_all(*out, diags);
  }

  // A region on host tensors: arguments uploaded, walked on the device, results downloaded.
  std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                         DiagnosticSink& diags) final {
    auto dev = upload_all(args, diags);
    if (!dev) return std::nullopt;
    auto out = walk(g, region, *dev, diags);
    if (!out) return std::nullopt;
    return download_all(*out, diags);
  }

  // A region on device values: arguments and results stay on the device.
  std::optional<std::vector<Value>> walk(const Graph& g, RegionId rid, std::span<const Value> args, DiagnosticSink& diags,
                                         int depth = 0) {
    const Region& r = g.region(rid);
    if (!check_region_entry(r, args.size(), depth, kMaxCallDepth, diags)) return std::nullopt;
    DimBindings bindings;
    std::unordered_map<NodeId, std::vector<Value>> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!check_argument(g, r, i, dtype_of(args[i]), shape_of(args[i]), bindings, diags)) return std::nullopt;
      values[r.params[i]] = {args[i]};
    }
    std::vector<NodeId> order = nodes_in_region(g, r);
    std::unordered_map<NodeId, std::size_t> uses = uses_in_region(g, r, order);  // values die after their last use
    for (NodeId n : order) {
      if (values.count(n)) continue;  // a parameter
      const Node& node = g.node(n);
      std::vector<Value> inputs;
      for (const auto& in : node.inputs) inputs.push_back(values.at(in.node).at(in.output));
      std::optional<std::vector<Value>> out;
      std::size_t before = diags.all().size();
      if (node.opcode == opcode::kConst) {
        if (auto v = upload(constant_value(node), diags)) out = std::vector<Value>{std::move(*v)};
      } else if (node.opcode == opcode::kCall) {
        RegionId callee = *g.find_region(node.attrs.at("callee").as<Hash256>());
        if (!run_call(g, node, callee, inputs, diags, out)) out = walk(g, callee, inputs, diags, depth + 1);
      } else {
        const ops::OpDef* def = ops::op_registry().find(node.opcode);
        if (!def) {
          diags.error("N0010", "unknown op `" + node.opcode + "`");
          return std::nullopt;
        }
        AttrMap scratch;
        out = dispatch(*def, inputs, bind_shape_attrs(node.attrs, bindings, scratch), diags);
      }
      if (!out) {
        if (diags.all().size() > before) diags.last().note("while evaluating " + describe_node(g, n) + " in `" + r.name + "`");
        return std::nullopt;
      }
      if (!check_result_count(g, n, out->size(), diags)) return std::nullopt;
      for (std::size_t i = 0; i < out->size(); ++i)
        if (!check_result(g, n, i, dtype_of((*out)[i]), shape_of((*out)[i]), bindings, diags)) return std::nullopt;
      values[n] = std::move(*out);
      for (const auto& in : node.inputs)
        if (--uses[in.node] == 0) values.erase(in.node);
    }
    std::vector<Value> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    if (!region_done(diags)) return std::nullopt;  // a failed dispatch surfaces here, before any result is used
    return results;
  }

  static constexpr int kMaxCallDepth = 64;

 protected:
  // --- The hooks ---
  // A host tensor onto the device (arguments and constants).
  virtual std::optional<Value> upload(const ops::HostTensor& t, DiagnosticSink& diags) = 0;
  // A device value back to the host.
  virtual std::optional<ops::HostTensor> download(const Value& v, DiagnosticSink& diags) = 0;
  // One op on device values: its outputs are allocated and stay on the device.
  virtual std::optional<std::vector<Value>> dispatch(const ops::OpDef& op, std::span<const Value> inputs, const AttrMap& attrs,
                                                     DiagnosticSink& diags) = 0;
  // A `call` node the backend runs its own way (a fused region as one kernel): true when it
  // took the node (results in `out`, or nullopt after a diagnostic); false to walk the callee.
  virtual bool run_call(const Graph& /*g*/, const Node& /*call*/, RegionId /*callee*/, std::span<const Value> /*inputs*/,
                        DiagnosticSink& /*diags*/, std::optional<std::vector<Value>>& /*out*/) {
    return false;
  }
  // Called when a region's walk has its results (of every region, callees too): where a
  // backend that dispatches asynchronously waits and reports a failure. False after a
  // diagnostic.
  virtual bool region_done(DiagnosticSink& /*diags*/) { return true; }
  // The dtype and extents a device value holds.
  virtual DType dtype_of(const Value& v) const = 0;
  virtual std::span<const std::uint64_t> shape_of(const Value& v) const = 0;

 private:
  std::optional<std::vector<Value>> upload_all(std::span<const ops::HostTensor> host, DiagnosticSink& diags) {
    std::vector<Value> dev;
    for (const auto& h : host) {
      auto v = upload(h, diags);
      if (!v) return std::nullopt;
      dev.push_back(std::move(*v));
    }
    return dev;
  }
  std::optional<std::vector<ops::HostTensor>> download_all(std::span<const Value> dev, DiagnosticSink& diags) {
    std::vector<ops::HostTensor> host;
    for (const auto& v : dev) {
      auto h = download(v, diags);
      if (!h) return std::nullopt;
      host.push_back(std::move(*h));
    }
    return host;
  }
};

}  // namespace rung::runtime
