#include "onnx/parse.h"

#include <set>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace rung::onnx_import {
namespace {

bool parse_with(std::string_view bytes, int recursion, ::onnx::ModelProto& m) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(static_cast<int>(bytes.size()));
  in.SetRecursionLimit(recursion);
  return m.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

}  // namespace

std::optional<::onnx::ModelProto> parse_model(std::string_view bytes, const Limits& limits, DiagnosticSink& diags) {
  if (bytes.size() > limits.max_proto_bytes) {
    diags.error("I0002", "the model is " + std::to_string(bytes.size()) + " bytes, over protobuf's limit of " +
                             std::to_string(limits.max_proto_bytes) + " bytes")
        .note("a model this large keeps its weights in external data files (onnx.save_model(..., save_as_external_data=True))");
    return std::nullopt;
  }
  if (bytes.empty()) {
    diags.error("I0001", "the model file is empty");
    return std::nullopt;
  }
  ::onnx::ModelProto m;
  if (parse_with(bytes, limits.max_recursion, m)) return m;
  // Tell a nesting limit from broken bytes: a generous second limit that parses says which.
  ::onnx::ModelProto deeper;
  if (parse_with(bytes, limits.max_recursion * 10, deeper)) {
    diags.error("I0002", "the model's messages nest deeper than " + std::to_string(limits.max_recursion) + " levels")
        .note("graphs inside attributes (If, Loop, Scan bodies) are what nests; no handler takes them yet");
    return std::nullopt;
  }
  diags.error("I0001", "the bytes are not an ONNX model: the protobuf ModelProto does not parse")
      .note("a truncated or corrupted file, or not an .onnx file at all");
  return std::nullopt;
}

std::optional<std::vector<std::string>> graph_input_names(std::string_view bytes, const Limits& limits, DiagnosticSink& diags) {
  auto model = parse_model(bytes, limits, diags);
  if (!model) return std::nullopt;
  std::set<std::string> initializers;
  for (const auto& t : model->graph().initializer()) initializers.insert(t.name());
  std::vector<std::string> out;
  for (const auto& v : model->graph().input())
    if (!initializers.count(v.name())) out.push_back(v.name());
  return out;
}

}  // namespace rung::onnx_import
