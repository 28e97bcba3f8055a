// The node handlers, keyed by (domain, op type, opset range): the model's opset import of the
// node's domain picks the one whose range holds it (Softmax below 13 flattens, from 13 it does
// not; Adam is ai.onnx.preview.training opset 1).
// Each family file adds its handlers; handlers.cpp keeps the table.
#pragma once

#include <string_view>
#include <vector>

#include "onnx/context.h"

namespace rung::onnx_import {

using HandlerFn = bool (*)(NodeCtx&);

struct Handler {
  const char* op_type;
  int since, until;  // the opsets of `domain` it covers, both inclusive
  HandlerFn fn;
  const char* how;   // the registry ops it emits, for `rung import --list-ops`
  const char* domain = "";  // "" is ai.onnx
};

inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

inline constexpr int kMinOpset = 1, kMaxOpset = 17;  // onnx 1.12's ai.onnx

void add_elementwise_handlers(std::vector<Handler>& h);
void add_reduce_handlers(std::vector<Handler>& h);
void add_shape_handlers(std::vector<Handler>& h);
void add_nn_handlers(std::vector<Handler>& h);
void add_conv_handlers(std::vector<Handler>& h);
void add_constant_handlers(std::vector<Handler>& h);
void add_layout_handlers(std::vector<Handler>& h);
void add_rnn_handlers(std::vector<Handler>& h);
void add_resize_handlers(std::vector<Handler>& h);
void add_newops_handlers(std::vector<Handler>& h);
void add_loss_handlers(std::vector<Handler>& h);
void add_trig_handlers(std::vector<Handler>& h);
void add_window_handlers(std::vector<Handler>& h);
void add_spectral_handlers(std::vector<Handler>& h);
void add_einsum_handlers(std::vector<Handler>& h);
void add_index_handlers(std::vector<Handler>& h);
void add_linalg_handlers(std::vector<Handler>& h);
void add_training_handlers(std::vector<Handler>& h);
void add_control_handlers(std::vector<Handler>& h);
void add_misc_handlers(std::vector<Handler>& h);
void add_quant_handlers(std::vector<Handler>& h);
void add_scatter_handlers(std::vector<Handler>& h);
void add_sample_handlers(std::vector<Handler>& h);

const std::vector<Handler>& handlers();
// The handler for `op_type` of `domain` ("" or "ai.onnx" is ai.onnx) at that domain's `opset`,
// or null; `ranges` gets the ranges that exist.
const Handler* find_handler(std::string_view domain, std::string_view op_type, std::int64_t opset, std::string* ranges = nullptr);
// Whether any handler has `domain` ("" or "ai.onnx" is ai.onnx).
bool domain_has_handlers(std::string_view domain);
// A node's domain as the handler table spells it: "" for ai.onnx (either spelling).
inline std::string_view handler_domain(std::string_view d) { return d == "ai.onnx" ? std::string_view{} : d; }

// Shared by the family files.
std::optional<Value> cast_to(NodeCtx& c, const Value& v, DType to);
std::optional<Value> reshape_to(NodeCtx& c, const Value& v, Shape shape);
// MatMul with numpy's 1-D rules (handlers_nn.cpp), and Conv of in = {x, w[, b]} reading the
// node's Conv attributes (handlers_conv.cpp): the integer and quantized forms reuse them.
std::optional<Value> matmul_of(NodeCtx& c, Value a, Value b);
std::optional<Value> conv_of(NodeCtx& c, const std::vector<Value>& in);
// Signed indices along `axis` of x with negative ones counting from the end (lt, add,
// where; I0012 over a symbolic dim unless the indices are known and non-negative).
std::optional<Value> wrap_negative_indices(NodeCtx& c, const Value& x, const Value& idx, std::int64_t axis, const char* what);

}  // namespace rung::onnx_import

namespace rung::onnx_import {
// Inputs 0..n-1 are present (I0005 naming the first that is not).
bool need(NodeCtx& c, std::size_t n);
// Sets output 0 from an emitter's result; false (already reported) when there is none.
inline bool out0(NodeCtx& c, const std::optional<Value>& v) {
  if (!v) return false;
  c.set(0, *v);
  return true;
}
}  // namespace rung::onnx_import
