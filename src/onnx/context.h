// What a handler sees while it translates one ONNX node: the node's inputs as values (a
// graph value, and the tensor itself where it is known at import), its attributes (each read
// is recorded: an attribute no handler read is refused, I0005, never ignored), and emitters
// that go through the registry's own type inference. An op whose operands are all known and
// whose results fit kFoldBytes is evaluated at import on the reference kernels (the op's
// definition), which folds the shape arithmetic models carry (Shape, Gather, Concat, ...).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/graph/builder.h"
#include "onnx/tensor_data.h"
#include "ops/host_tensor.h"

namespace rung::onnx_import {

inline constexpr std::uint64_t kFoldBytes = 64 * 1024;  // the fold pass's limit

struct Value {
  TensorType type;
  std::optional<ValueRef> ref;                     // made on first use when the value is known
  std::shared_ptr<const ops::HostTensor> known;    // the value, when known at import
  // The graph inputs a run-time value is computed from (sorted, no repeats): what I0012 tells
  // the user to bind when a shape-like operand is one of these.
  std::vector<std::string> from;

  std::size_t rank() const { return type.rank(); }
};

// The state of one import: the graph being built and the values by ONNX name.
struct Converter {
  Converter(const Options& o, DiagnosticSink& d) : options(o), diags(d), reader(o, d), b(graph) {}
  ValueRef ref_of(const Value& v);  // a known value becomes a const node (once per tensor)

  const Options& options;
  DiagnosticSink& diags;
  TensorReader reader;
  Graph graph;
  GraphBuilder b;
  std::map<std::string, Value> values;
  // The model's opset imports by domain ("" is ai.onnx): a subgraph's nodes pick their
  // handlers by these too.
  std::map<std::string, std::int64_t> opsets;
  // Nodes imported from subgraph bodies so far, plus one per body import (If, Loop and Scan
  // import theirs once per iteration), against kMaxUnrolledNodes (subgraph.h).
  std::uint64_t unrolled_nodes = 0;
  // Known tensors already made const nodes. The entry holds the tensor, so its address cannot
  // be reused by another one while the import runs.
  std::map<const ops::HostTensor*, std::pair<std::shared_ptr<const ops::HostTensor>, ValueRef>> const_refs;
};

class NodeCtx {
 public:
  NodeCtx(Converter& c, const ::onnx::NodeProto& n, std::string place, std::int64_t opset)
      : c_(c), n_(n), place_(std::move(place)), opset_(opset), outs_(static_cast<std::size_t>(n.output_size())) {}

  std::int64_t opset() const { return opset_; }
  const std::string& place() const { return place_; }
  const ::onnx::NodeProto& node() const { return n_; }

  // ---- inputs and outputs -------------------------------------------------------------
  std::size_t input_count() const { return static_cast<std::size_t>(n_.input_size()); }
  bool has(std::size_t i) const { return i < input_count() && !n_.input(static_cast<int>(i)).empty(); }
  const Value& in(std::size_t i) const;  // has(i) must hold (the converter resolved every name)
  bool want(std::size_t i) const { return i < outs_.size() && !n_.output(static_cast<int>(i)).empty(); }
  void set(std::size_t i, Value v) { if (i < outs_.size()) outs_[i] = std::move(v); }
  std::vector<std::optional<Value>>& results() { return outs_; }

  // ---- attributes (each read marks it used) -------------------------------------------
  bool has_attr(const std::string& name) const;
  std::int64_t attr_int(const std::string& name, std::int64_t dflt);
  float attr_float(const std::string& name, float dflt);
  std::string attr_string(const std::string& name, const std::string& dflt);
  std::optional<std::vector<std::int64_t>> attr_ints(const std::string& name);
  std::optional<std::vector<float>> attr_floats(const std::string& name);
  std::optional<std::vector<std::string>> attr_strings(const std::string& name);
  const ::onnx::TensorProto* attr_tensor(const std::string& name);
  const ::onnx::GraphProto* attr_graph(const std::string& name);
  const std::set<std::string>& read_attrs() const { return read_; }
  bool attr_error() const { return attr_error_; }

  // ---- diagnostics --------------------------------------------------------------------
  // Reports `message` at this node and returns false (handlers `return c.fail(...)`).
  bool fail(const char* code, const std::string& message, const std::string& note = {});

  // ---- emitting -----------------------------------------------------------------------
  std::optional<Value> op(const char* name, std::vector<Value> inputs, AttrMap attrs = {});
  std::optional<std::vector<Value>> op_multi(const char* name, std::vector<Value> inputs, AttrMap attrs = {});
  Value constant(ops::HostTensor t);
  Value scalar(DType dt, double v);  // a rank-0 constant, v rounded once to dt
  // The integer elements of a value known at import (I0012 naming `what` when it is not).
  std::optional<std::vector<std::int64_t>> known_ints(const Value& v, const std::string& what);
  std::optional<std::vector<double>> known_reals(const Value& v, const std::string& what);
  // I0012 for a shape-like operand `what` that is not known at import, naming the graph
  // inputs it is computed from (each as `bind the graph input "NAME" at import: --bind ...`,
  // a phrase the node-test runner reads). Returns false.
  bool not_known(const Value& v, const std::string& what);
  // A static shape (I0012 when a dim is symbolic).
  std::optional<std::vector<std::uint64_t>> static_shape(const Value& v, const std::string& what);
  // The axis `a` of a rank-`rank` value, negative counting from the end (I0005 when outside).
  std::optional<std::int64_t> axis(std::int64_t a, std::size_t rank, const std::string& what);

  Converter& converter() { return c_; }

 private:
  const ::onnx::AttributeProto* find_attr(const std::string& name, ::onnx::AttributeProto_AttributeType type);

  Converter& c_;
  const ::onnx::NodeProto& n_;
  std::string place_;
  std::int64_t opset_;
  std::vector<std::optional<Value>> outs_;
  std::set<std::string> read_;
  bool attr_error_ = false;
};

}  // namespace rung::onnx_import
