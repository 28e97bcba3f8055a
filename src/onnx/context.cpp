#include "onnx/context.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "base/check.h"
#include "onnx/place.h"
#include "ops/evaluate.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::onnx_import {

using AttrType = ::onnx::AttributeProto_AttributeType;

ValueRef Converter::ref_of(const Value& v) {
  if (v.ref) return *v.ref;
  RUNG_CHECK(v.known != nullptr, "an ONNX value with neither a graph value nor a known tensor");
  if (auto it = const_refs.find(v.known.get()); it != const_refs.end()) return it->second.second;
  auto bytes = v.known->bytes();
  ValueRef r = b.constant(v.known->type(), Bytes(bytes.begin(), bytes.end()));
  const_refs.emplace(v.known.get(), std::make_pair(v.known, r));
  return r;
}

const Value& NodeCtx::in(std::size_t i) const {
  RUNG_CHECK(has(i), "NodeCtx::in: absent input");
  return c_.values.at(n_.input(static_cast<int>(i)));
}

bool NodeCtx::fail(const char* code, const std::string& message, const std::string& note) {
  auto& d = c_.diags.error(code, place_ + ": " + message);
  if (!note.empty()) d.note(note);
  return false;
}

bool NodeCtx::has_attr(const std::string& name) const {
  for (const auto& a : n_.attribute())
    if (a.name() == name) return true;
  return false;
}

const ::onnx::AttributeProto* NodeCtx::find_attr(const std::string& name, AttrType type) {
  for (const auto& a : n_.attribute()) {
    if (a.name() != name) continue;
    read_.insert(name);
    if (a.type() != type && a.type() != ::onnx::AttributeProto::UNDEFINED) {
      fail("I0005", "attribute \"" + name + "\" must be " + ::onnx::AttributeProto_AttributeType_Name(type) + ", not " +
                        ::onnx::AttributeProto_AttributeType_Name(a.type()));
      attr_error_ = true;
      return nullptr;
    }
    return &a;
  }
  return nullptr;
}

std::int64_t NodeCtx::attr_int(const std::string& name, std::int64_t dflt) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::INT);
  return a ? a->i() : dflt;
}
float NodeCtx::attr_float(const std::string& name, float dflt) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::FLOAT);
  return a ? a->f() : dflt;
}
std::string NodeCtx::attr_string(const std::string& name, const std::string& dflt) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::STRING);
  return a ? a->s() : dflt;
}
std::optional<std::vector<std::int64_t>> NodeCtx::attr_ints(const std::string& name) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::INTS);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}
std::optional<std::vector<float>> NodeCtx::attr_floats(const std::string& name) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::FLOATS);
  if (!a) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}
std::optional<std::vector<std::string>> NodeCtx::attr_strings(const std::string& name) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::STRINGS);
  if (!a) return std::nullopt;
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}
const ::onnx::TensorProto* NodeCtx::attr_tensor(const std::string& name) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::TENSOR);
  return a ? &a->t() : nullptr;
}

const ::onnx::GraphProto* NodeCtx::attr_graph(const std::string& name) {
  const auto* a = find_attr(name, ::onnx::AttributeProto::GRAPH);
  return a ? &a->g() : nullptr;
}

std::optional<std::vector<Value>> NodeCtx::op_multi(const char* name, std::vector<Value> inputs, AttrMap attrs) {
  const ops::OpDef* def = ops::op_registry().find(name);
  RUNG_CHECK(def != nullptr, (std::string("an ONNX handler emits the unknown op ") + name).c_str());
  std::vector<TensorType> types;
  bool all_known = true;
  for (const auto& v : inputs) {
    types.push_back(v.type);
    all_known = all_known && v.known != nullptr;
  }
  std::vector<std::string> why;
  auto typed = ops::infer_types(*def, types, attrs, why);
  if (!typed) {
    std::string shown;
    for (const auto& t : types) shown += (shown.empty() ? "" : ", ") + t.to_string();
    auto& d = c_.diags.error("I0005", place_ + ": cannot be mapped onto rung's " + std::string(name) + " (operands " + shown + ")");
    for (const auto& w : why) d.note(w);
    return std::nullopt;
  }
  std::uint64_t out_bytes = 0;
  bool small = true;
  for (const auto& t : typed->results) {
    auto bytes = t.byte_size();
    if (!bytes || *bytes > kFoldBytes - out_bytes) small = false;
    else out_bytes += *bytes;
  }
  std::vector<Value> out;
  if (all_known && small) {
    std::vector<ops::HostTensor> args;
    for (const auto& v : inputs) args.push_back(v.known->share());
    DiagnosticSink eval;
    auto r = ops::evaluate(*def, args, typed->attrs.map(), eval);
    if (!r) {
      c_.diags.append(eval);
      if (!c_.diags.empty()) c_.diags.last().note("while folding " + place_ + " at import");
      return std::nullopt;
    }
    for (auto& t : *r) {
      TensorType type = t.type();
      out.push_back(Value{std::move(type), std::nullopt, std::make_shared<const ops::HostTensor>(std::move(t))});
    }
    return out;
  }
  std::vector<ValueRef> refs;
  std::vector<std::string> from;
  for (const auto& v : inputs) {
    refs.push_back(c_.ref_of(v));
    from.insert(from.end(), v.from.begin(), v.from.end());
  }
  std::sort(from.begin(), from.end());
  from.erase(std::unique(from.begin(), from.end()), from.end());
  auto outs = c_.b.op_multi(name, refs, typed->results, typed->attrs.map());
  for (std::size_t i = 0; i < outs.size(); ++i) out.push_back(Value{typed->results[i], outs[i], nullptr, from});
  return out;
}

std::optional<Value> NodeCtx::op(const char* name, std::vector<Value> inputs, AttrMap attrs) {
  auto r = op_multi(name, std::move(inputs), std::move(attrs));
  if (!r) return std::nullopt;
  RUNG_CHECK(r->size() == 1, "NodeCtx::op on a multi-result op");
  return std::move(r->front());
}

Value NodeCtx::constant(ops::HostTensor t) {
  TensorType type = t.type();
  return Value{std::move(type), std::nullopt, std::make_shared<const ops::HostTensor>(std::move(t))};
}

Value NodeCtx::scalar(DType dt, double v) {
  ops::HostTensor t(dt, {});
  const auto& info = dtype_info(dt);
  if (info.is_float) t.store_f64(0, v);
  else if (dt == DType::boolean) t.bytes()[0] = v != 0;
  else t.store_int(0, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  return constant(std::move(t));
}

std::optional<std::vector<std::int64_t>> NodeCtx::known_ints(const Value& v, const std::string& what) {
  constexpr std::uint64_t kMaxShapeLike = 1u << 16;
  if (!v.known) {
    not_known(v, what);
    return std::nullopt;
  }
  const auto& t = *v.known;
  if (dtype_info(t.dtype()).is_float || t.numel() > kMaxShapeLike) {
    fail("I0005", what + " must be a small integer tensor, not " + t.type().to_string());
    return std::nullopt;
  }
  std::vector<std::int64_t> out;
  for (std::uint64_t i = 0; i < t.numel(); ++i) {
    if (t.dtype() == DType::u64) {
      std::uint64_t u = t.load_u64(i);
      if (u > static_cast<std::uint64_t>(INT64_MAX)) {
        fail("I0005", what + " holds " + std::to_string(u) + ", beyond int64");
        return std::nullopt;
      }
      out.push_back(static_cast<std::int64_t>(u));
    } else {
      out.push_back(t.load_i64(i));
    }
  }
  return out;
}

std::optional<std::vector<double>> NodeCtx::known_reals(const Value& v, const std::string& what) {
  if (!v.known) {
    not_known(v, what);
    return std::nullopt;
  }
  const auto& t = *v.known;
  std::vector<double> out;
  for (std::uint64_t i = 0; i < t.numel() && i < (1u << 16); ++i) {
    if (dtype_info(t.dtype()).is_float) out.push_back(t.load_f64(i));
    else if (t.dtype() == DType::u64) out.push_back(static_cast<double>(t.load_u64(i)));
    else out.push_back(static_cast<double>(t.load_i64(i)));
  }
  return out;
}

bool NodeCtx::not_known(const Value& v, const std::string& what) {
  const char* kinds = "shape-like operands (shapes, axes, pads, bounds) must be initializers, Constant nodes or foldable from them";
  if (v.from.empty()) return fail("I0012", what + " is computed at run time; rung needs it at import", kinds);
  std::string names;
  for (const auto& n : v.from) names += (names.empty() ? "" : ", ") + quoted(n);
  auto& d = c_.diags.error("I0012", place_ + ": " + what + " is computed at run time from the graph input" +
                                        (v.from.size() > 1 ? "s " : " ") + names + "; rung needs it at import");
  d.note(kinds);
  for (const auto& n : v.from) {
    // The flag spelled with the name only when it is plain (a hostile name stays quoted above).
    bool plain = !n.empty() && n.size() <= 120 && std::all_of(n.begin(), n.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("_.:/-").find(ch) != std::string_view::npos;
    });
    d.note("bind the graph input " + quoted(n) + " at import: --bind " + (plain ? n : std::string("NAME")) +
           "=FILE.npy (Python: rung.load(..., bind={" + quoted(n) + ": array}))");
  }
  return false;
}

std::optional<std::vector<std::uint64_t>> NodeCtx::static_shape(const Value& v, const std::string& what) {
  std::vector<std::uint64_t> out;
  for (const auto& d : v.type.shape) {
    if (!d.is_static()) {
      fail("I0012", what + " has the symbolic dim " + d.name() + " (" + v.type.to_string() + "); this op needs static extents",
           "bind the symbol to an extent at import (--dim " + d.name() + "=EXTENT) or when exporting (a fixed input shape)");
      return std::nullopt;
    }
    out.push_back(d.extent());
  }
  return out;
}

std::optional<std::int64_t> NodeCtx::axis(std::int64_t a, std::size_t rank, const std::string& what) {
  auto r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r) {
    fail("I0005", what + " " + std::to_string(a) + " is outside [" + std::to_string(-r) + ", " + std::to_string(r) + ")");
    return std::nullopt;
  }
  return a < 0 ? a + r : a;
}

}  // namespace rung::onnx_import
