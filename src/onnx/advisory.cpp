#include "onnx/advisory.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <set>

#include "base/utf8.h"

namespace rung::onnx_import {
namespace {

std::string what_of(const std::exception& e) {
  std::string s = e.what();
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return utf8::scrub(s);
}

// The model without its large weights: each initializer past 64 KiB, or in external data,
// becomes a graph input of its type. The checker and shape inference read only small
// (shape-like) initializers; this way neither holds a second copy of the weights, and
// neither looks for external files (onnx 1.12's checker stats them relative to the current
// folder: onnx/onnx#3991).
::onnx::ModelProto light_copy(const ::onnx::ModelProto& m) {
  ::onnx::ModelProto copy;
  copy.set_ir_version(m.ir_version());
  *copy.mutable_opset_import() = m.opset_import();
  auto* g = copy.mutable_graph();
  g->set_name(m.graph().name());
  *g->mutable_node() = m.graph().node();
  *g->mutable_input() = m.graph().input();
  *g->mutable_output() = m.graph().output();
  std::set<std::string> inputs;
  for (const auto& v : m.graph().input()) inputs.insert(v.name());
  for (const auto& t : m.graph().initializer()) {
    if (t.raw_data().size() <= 65536 && t.data_location() != ::onnx::TensorProto::EXTERNAL &&
        t.float_data_size() + t.int32_data_size() + t.int64_data_size() + t.double_data_size() + t.uint64_data_size() <= 16384) {
      *g->add_initializer() = t;
    } else if (!inputs.count(t.name())) {
      auto* v = g->add_input();
      v->set_name(t.name());
      auto* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(t.data_type());
      auto* shape = tt->mutable_shape();
      for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
    }
  }
  return copy;
}

}  // namespace

bool run_checker(const ::onnx::ModelProto& m, DiagnosticSink& diags) {
  try {
    ::onnx::checker::check_model(light_copy(m));
    return true;
  } catch (const std::exception& e) {
    diags.error("I0010", "the ONNX checker refuses the model: " + what_of(e))
        .note("rung's own checks passed; the checker (onnx 1.12) found this");
    return false;
  }
}

std::map<std::string, InferredType> infer_shapes(const ::onnx::ModelProto& m, DiagnosticSink& diags) {
  std::map<std::string, InferredType> out;
  ::onnx::ModelProto copy = light_copy(m);
  try {
    ::onnx::shape_inference::InferShapes(copy);
  } catch (const std::exception& e) {
    diags.warning("I0010", "ONNX shape inference stopped: " + what_of(e));
    return out;
  }
  for (const auto& v : copy.graph().value_info()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    InferredType t{v.type().tensor_type().elem_type(), {}};
    for (const auto& d : v.type().tensor_type().shape().dim())
      t.dims.push_back(d.has_dim_value() ? std::optional<std::int64_t>(d.dim_value()) : std::nullopt);
    out.emplace(v.name(), std::move(t));
  }
  return out;
}

}  // namespace rung::onnx_import
