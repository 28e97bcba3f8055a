#include "onnx/handlers.h"

#include <algorithm>
#include <cstring>

#include "onnx/onnx_import.h"

namespace rung::onnx_import {

const std::vector<Handler>& handlers() {
  static const std::vector<Handler> table = [] {
    std::vector<Handler> h;
    add_elementwise_handlers(h);
    add_reduce_handlers(h);
    add_shape_handlers(h);
    add_nn_handlers(h);
    add_conv_handlers(h);
    add_constant_handlers(h);
    add_layout_handlers(h);
    add_rnn_handlers(h);
    add_resize_handlers(h);
    add_newops_handlers(h);
    add_loss_handlers(h);
    add_trig_handlers(h);
    add_window_handlers(h);
    add_spectral_handlers(h);
    add_einsum_handlers(h);
    add_index_handlers(h);
    add_linalg_handlers(h);
    add_training_handlers(h);
    add_control_handlers(h);
    add_misc_handlers(h);
    add_quant_handlers(h);
    add_scatter_handlers(h);
    add_sample_handlers(h);
    std::sort(h.begin(), h.end(), [](const Handler& a, const Handler& b) {
      int d = std::strcmp(a.domain, b.domain);
      if (d != 0) return d < 0;
      int c = std::strcmp(a.op_type, b.op_type);
      return c != 0 ? c < 0 : a.since < b.since;
    });
    return h;
  }();
  return table;
}

const Handler* find_handler(std::string_view domain, std::string_view op_type, std::int64_t opset, std::string* ranges) {
  const Handler* found = nullptr;
  domain = handler_domain(domain);
  for (const auto& h : handlers()) {
    if (op_type != h.op_type || domain != h.domain) continue;
    if (ranges) *ranges += (ranges->empty() ? "" : ", ") + std::to_string(h.since) + "-" + std::to_string(h.until);
    if (opset >= h.since && opset <= h.until) found = &h;
  }
  return found;
}

bool domain_has_handlers(std::string_view domain) {
  domain = handler_domain(domain);
  for (const auto& h : handlers())
    if (domain == h.domain) return true;
  return false;
}

std::vector<HandlerInfo> handler_list() {
  std::vector<HandlerInfo> out;
  for (const auto& h : handlers()) out.push_back({*h.domain ? h.domain : "ai.onnx", h.op_type, h.since, h.until, h.how});
  return out;
}

std::optional<Value> cast_to(NodeCtx& c, const Value& v, DType to) {
  if (v.type.dtype == to) return v;
  return c.op("cast", {v}, {{"to", AttrValue(to)}});
}

std::optional<Value> reshape_to(NodeCtx& c, const Value& v, Shape shape) {
  if (v.type.shape == shape) return v;
  return c.op("reshape", {v}, {{"shape", AttrValue(std::move(shape))}});
}

}  // namespace rung::onnx_import

namespace rung::onnx_import {
bool need(NodeCtx& c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!c.has(i)) return c.fail("I0005", "input " + std::to_string(i) + " is required");
  return true;
}
}  // namespace rung::onnx_import
