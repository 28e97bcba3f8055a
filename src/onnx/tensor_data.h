// TensorProto to HostTensor: dtype (I0007), dims (negative, rank, element count by checked
// multiplication: I0006, I0002), the weight budget (I0014) and the data's length against the
// dims (I0006), all before anything is allocated; external data through ExternalFiles.
#pragma once

#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "onnx/external_data.h"
#include "onnx/onnx_import.h"
#include "ops/host_tensor.h"

namespace rung::onnx_import {

class TensorReader {
 public:
  TensorReader(const Options& options, DiagnosticSink& diags) : limits_(options.limits), files_(options.model_dir), diags_(diags) {}

  std::optional<ops::HostTensor> read(const ::onnx::TensorProto& t, const std::string& place);
  std::uint64_t weight_bytes() const { return weight_bytes_; }

 private:
  std::optional<ops::HostTensor> typed_data(const ::onnx::TensorProto& t, DType dt, ops::Extents shape, std::uint64_t n,
                                            const std::string& place);

  const Limits& limits_;
  ExternalFiles files_;
  DiagnosticSink& diags_;
  std::uint64_t weight_bytes_ = 0;
};

}  // namespace rung::onnx_import
