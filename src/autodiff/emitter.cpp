#include "autodiff/emitter.h"

#include <algorithm>
#include <optional>

#include "base/check.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::autodiff {

std::vector<ValueRef> Emitter::op_multi(std::string_view name, std::vector<ValueRef> inputs, AttrMap attrs) {
  const ops::OpDef* def = ops::op_registry().find(name);
  RUNG_CHECK(def != nullptr, "gradient rule emits an unknown op");
  std::vector<TensorType> types;
  for (const auto& v : inputs) types.push_back(type(v));
  std::vector<std::string> errors;
  auto typed = ops::infer_types(*def, types, attrs, errors);
  if (!typed) {
    std::string msg = "gradient rule emitted an ill-typed `" + std::string(name) + "`:";
    for (const auto& e : errors) msg += " " + e;
    RUNG_CHECK(false, msg.c_str());
  }
  return b_.op_multi(std::string(name), std::move(inputs), typed->results, typed->attrs.map());
}

ValueRef Emitter::op(std::string_view name, std::vector<ValueRef> inputs, AttrMap attrs) {
  return op_multi(name, std::move(inputs), std::move(attrs)).at(0);
}

ValueRef Emitter::scalar(DType dt, double value) {
  ops::HostTensor t(dt, {});
  if (dtype_info(dt).is_float) t.store_f64(0, value);
  else t.store_int(0, static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
  return b_.constant(tensor(dt, {}), Bytes(t.bytes().begin(), t.bytes().end()));
}

ValueRef Emitter::reduce_like(ValueRef g, ValueRef like) {
  const TensorType gt = type(g), lt = type(like);
  RUNG_CHECK(gt.rank() >= lt.rank(), "reduce_like: the gradient has fewer dims than its operand");
  std::size_t extra = gt.rank() - lt.rank();
  if (extra > 0) {
    std::vector<std::int64_t> lead;
    for (std::size_t i = 0; i < extra; ++i) lead.push_back(static_cast<std::int64_t>(i));
    g = op("sum", {g}, {{"axes", lead}, {"keepdims", false}});
  }
  std::vector<std::int64_t> ones;
  const TensorType now = type(g);
  for (std::size_t i = 0; i < lt.rank(); ++i)
    if (lt.shape[i].is_static() && lt.shape[i].extent() == 1 && !(now.shape[i].is_static() && now.shape[i].extent() == 1))
      ones.push_back(static_cast<std::int64_t>(i));
  if (!ones.empty()) g = op("sum", {g}, {{"axes", ones}, {"keepdims", true}});
  return g;
}

}  // namespace rung::autodiff

namespace rung::autodiff {

ValueRef Emitter::constant(const TensorType& t, const std::vector<double>& values) {
  ops::Extents ext;
  for (const auto& d : t.shape) {
    RUNG_CHECK(d.is_static(), "Emitter::constant needs a static type");
    ext.push_back(d.extent());
  }
  ops::HostTensor h(t.dtype, ext);
  RUNG_CHECK(h.numel() == values.size(), "Emitter::constant: one value per element");
  for (std::uint64_t i = 0; i < h.numel(); ++i) h.store_f64(i, values[i]);
  return b_.constant(h.type(), Bytes(h.bytes().begin(), h.bytes().end()));
}

ValueRef Emitter::canonical_add(const std::vector<ValueRef>& terms) {
  RUNG_CHECK(!terms.empty(), "canonical_add of nothing");
  constexpr std::size_t kChunk = 4096, kLanes = 32;
  std::vector<ValueRef> level = terms;
  while (level.size() > 1) {
    std::vector<ValueRef> next;
    for (std::size_t begin = 0; begin < level.size(); begin += kChunk) {
      std::optional<ValueRef> lane[kLanes];
      std::size_t end = std::min(level.size(), begin + kChunk);
      for (std::size_t i = begin; i < end; ++i) {
        auto& acc = lane[(i - begin) % kLanes];
        acc = acc ? op("add", {*acc, level[i]}) : level[i];
      }
      for (std::size_t s = kLanes / 2; s >= 1; s /= 2)
        for (std::size_t l = 0; l < s; ++l) {
          if (lane[l] && lane[l + s]) lane[l] = op("add", {*lane[l], *lane[l + s]});
          else if (!lane[l]) lane[l] = lane[l + s];
        }
      next.push_back(*lane[0]);
    }
    level = std::move(next);
  }
  return level[0];
}

}  // namespace rung::autodiff
