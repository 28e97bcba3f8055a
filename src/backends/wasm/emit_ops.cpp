// The per-op table of the wasm generator: which kernel each opcode calls and how its
// attributes become constants. Every op here computes what the reference computes, in the
// reference's order (the kernels say how): f32, and f64 where the functors and kernels have it.
#include "backends/wasm/emit_ops.h"

#include <algorithm>
#include <map>

#include "ir/graph/dtype.h"
#include "ops/attrs.h"
#include "ops/slice_bounds.h"

namespace rung::wasm {

namespace {

using Dims = std::vector<std::uint64_t>;

// Unary f32 ops: the functor of ops/numerics/elementwise.h each one calls.
const std::map<std::string, std::string>& unary_functors() {
  static const std::map<std::string, std::string> m{
      {"neg", "Neg"},       {"abs", "Abs"},           {"square", "Square"}, {"sqrt", "Sqrt"}, {"rsqrt", "Rsqrt"},
      {"reciprocal", "Reciprocal"}, {"relu", "Relu"}, {"floor", "Floor"},   {"ceil", "Ceil"}, {"round", "Round"},
      {"exp", "Exp"},       {"log", "Log"},           {"sin", "Sin"},       {"cos", "Cos"},   {"tanh", "Tanh"},
      {"sigmoid", "Sigmoid"}, {"silu", "Silu"},       {"erf", "Erf"},       {"asin", "Asin"}, {"acos", "Acos"},
      {"atan", "Atan"}};
  return m;
}
// Binary f32 ops (f32 result) and comparisons (bool result).
const std::map<std::string, std::string>& binary_functors() {
  static const std::map<std::string, std::string> m{{"add", "Add"},         {"sub", "Sub"},         {"mul", "Mul"},
                                                    {"div", "Div"},         {"maximum", "Maximum"}, {"minimum", "Minimum"},
                                                    {"pow", "Pow"}};
  return m;
}
const std::map<std::string, std::string>& compare_functors() {
  static const std::map<std::string, std::string> m{{"eq", "Eq"}, {"ne", "Ne"}, {"lt", "Lt"},
                                                    {"le", "Le"}, {"gt", "Gt"}, {"ge", "Ge"}};
  return m;
}
// The unary functors with a binary64 overload in ops/numerics/elementwise.h.
bool unary_f64(const std::string& op) {
  static const std::vector<std::string> v{"neg", "abs", "square", "sqrt", "rsqrt", "reciprocal", "relu",
                                          "floor", "ceil", "round", "exp", "log"};
  return std::find(v.begin(), v.end(), op) != v.end();
}

const std::vector<std::string>& other_opcodes() {
  static const std::vector<std::string> v{"const", "where", "cast", "sum", "mean", "max", "min", "softmax", "log_softmax",
                                          "matmul", "linear", "reshape", "transpose", "broadcast_to", "iota",
                                          "slice", "concat"};
  return v;
}

std::uint64_t count(const Dims& d) {
  std::uint64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

std::string ptr(const char* type, const ArenaTensor& t) {
  return std::string("P<") + type + ">(" + std::to_string(t.offset) + ")";
}

// A file-scope table of u32 (at least one entry: C++ has no empty arrays).
std::string table(CodeSink& sink, const Dims& values) {
  std::string name = "k" + std::to_string(sink.next_id++);
  std::string s = "static const wk::u32 " + name + "[] = {";
  if (values.empty()) s += "0";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  sink.statics += s + "};\n";
  return name;
}

// Row-major strides of `shape` read as broadcast to `out` (numpy's rule, dims aligned at the
// end): 0 along a dim the operand lacks or has as 1.
Dims broadcast_strides(const Dims& shape, const Dims& out) {
  Dims own(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) own[d - 1] = own[d] * shape[d];
  Dims s(out.size(), 0);
  std::size_t lead = out.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) s[lead + d] = own[d];
  return s;
}

std::optional<std::size_t> axis_of(std::int64_t a, std::size_t rank) {
  std::int64_t r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r) return std::nullopt;
  return static_cast<std::size_t>(a < 0 ? a + r : a);
}

bool all_f32(const std::vector<ArenaTensor>& ts) {
  return std::all_of(ts.begin(), ts.end(), [](const ArenaTensor& t) { return t.dtype == DType::f32; });
}

// The C++ type of a real dtype the kernels take (f32, f64), or null.
const char* real_type(DType t) { return t == DType::f32 ? "float" : t == DType::f64 ? "double" : nullptr; }

// Every operand and result of one real dtype: its C++ type, else null.
const char* one_real_type(const std::vector<ArenaTensor>& ins, const std::vector<ArenaTensor>& outs) {
  const char* t = real_type(outs.at(0).dtype);
  for (const auto* v : {&ins, &outs})
    for (const auto& x : *v)
      if (x.dtype != outs[0].dtype) return nullptr;
  return t;
}

std::string type_list(const std::vector<ArenaTensor>& ins) {
  std::string s;
  for (const auto& t : ins) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t.dtype));
  return s.empty() ? "no operands" : s;
}

// Row-major strides of a shape.
Dims row_major(const Dims& shape) {
  Dims own(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) own[d - 1] = own[d] * shape[d];
  return own;
}

std::string line(const std::string& call) { return "  " + call + ";\n"; }

// The same elements in another buffer: f32 through canonicalisation (a NaN with a payload
// leaves as the canonical one, as from every op), other types as bytes.
std::string copy(const ArenaTensor& x, const ArenaTensor& y) {
  if (const char* t = real_type(y.dtype))
    return line(std::string("wk::copy_canonical<") + t + ">(" + ptr(t, x) + ", " + ptr(t, y) + ", " + std::to_string(count(y.shape)) + ")");
  return line("wk::copy_bytes(arena + " + std::to_string(x.offset) + ", arena + " + std::to_string(y.offset) + ", " +
              std::to_string(y.bytes) + ")");
}

}  // namespace

const std::vector<std::string>& supported_opcodes() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v = other_opcodes();
    for (const auto* m : {&unary_functors(), &binary_functors(), &compare_functors()})
      for (const auto& [op, f] : *m) v.push_back(op);
    std::sort(v.begin(), v.end());
    return v;
  }();
  return all;
}

std::optional<std::string> emit_dispatch(const Node& node, const std::vector<ArenaTensor>& ins,
                                         const std::vector<ArenaTensor>& outs, CodeSink& sink) {
  const std::string& op = node.opcode;
  const auto unsupported_types = [&] {
    return "`" + op + "` has no wasm kernel for " + type_list(ins) + " -> " + type_list(outs);
  };
  if (op == "const") {
    const auto& bytes = node.attrs.at("value").as<Bytes>();
    std::string name = "k" + std::to_string(sink.next_id++);
    std::string s = "alignas(16) static const unsigned char " + name + "[] = {";
    if (bytes.empty()) s += "0";
    for (std::size_t i = 0; i < bytes.size(); ++i) s += (i ? "," : "") + std::to_string(bytes[i]);
    sink.statics += s + "};\n";
    if (!bytes.empty())
      sink.body += line("wk::copy_bytes(" + name + ", arena + " + std::to_string(outs[0].offset) + ", " +
                        std::to_string(bytes.size()) + ")");
    return std::nullopt;
  }
  if (outs.size() != 1) return "`" + op + "` with " + std::to_string(outs.size()) + " results has no wasm kernel";
  const ArenaTensor& y = outs[0];
  const std::string n = std::to_string(count(y.shape));
  if (auto u = unary_functors().find(op); u != unary_functors().end()) {
    const char* t = one_real_type(ins, outs);
    if (!t || (y.dtype == DType::f64 && !unary_f64(op))) return unsupported_types();
    sink.body += line(std::string("wk::unary<") + t + ", " + t + ">(rung::num::" + u->second + "{}, " + ptr(t, ins[0]) + ", " +
                      ptr(t, y) + ", " + n + ")");
    return std::nullopt;
  }
  auto b = binary_functors().find(op);
  auto c = compare_functors().find(op);
  if (b != binary_functors().end() || c != compare_functors().end()) {
    bool compare = c != compare_functors().end();
    const char* t = real_type(ins[0].dtype);
    if (!t || ins[1].dtype != ins[0].dtype || y.dtype != (compare ? DType::boolean : ins[0].dtype) ||
        (op == "pow" && ins[0].dtype != DType::f32))
      return unsupported_types();
    std::string out_type = compare ? "bool" : t;
    std::string functor = compare ? c->second : b->second;
    std::string shape = table(sink, y.shape);
    std::string sa = table(sink, broadcast_strides(ins[0].shape, y.shape));
    std::string sb = table(sink, broadcast_strides(ins[1].shape, y.shape));
    sink.body += line("wk::binary<" + out_type + ", " + t + ", " + t + ">(rung::num::" + functor + "{}, " + ptr(t, ins[0]) +
                      ", " + ptr(t, ins[1]) + ", " + ptr(out_type.c_str(), y) + ", " + std::to_string(y.shape.size()) +
                      ", " + shape + ", " + sa + ", " + sb + ")");
    return std::nullopt;
  }
  if (op == "where") {
    if (ins[0].dtype != DType::boolean || ins[1].dtype != DType::f32 || ins[2].dtype != DType::f32) return unsupported_types();
    std::string shape = table(sink, y.shape);
    std::string sc = table(sink, broadcast_strides(ins[0].shape, y.shape));
    std::string sa = table(sink, broadcast_strides(ins[1].shape, y.shape));
    std::string sb = table(sink, broadcast_strides(ins[2].shape, y.shape));
    sink.body += line("wk::select<float>(" + ptr("bool", ins[0]) + ", " + ptr("float", ins[1]) + ", " + ptr("float", ins[2]) +
                      ", " + ptr("float", y) + ", " + std::to_string(y.shape.size()) + ", " + shape + ", " + sc + ", " + sa +
                      ", " + sb + ")");
    return std::nullopt;
  }
  if (op == "cast") {
    DType from = ins[0].dtype, to = y.dtype;
    if (from == to && (real_type(to) || to == DType::boolean)) {
      sink.body += copy(ins[0], y);
    } else if (from == DType::f32 && to == DType::boolean) {
      sink.body += line("wk::cast_f32_to_bool(" + ptr("float", ins[0]) + ", " + ptr("bool", y) + ", " + n + ")");
    } else if (from == DType::boolean && to == DType::f32) {
      sink.body += line("wk::cast_bool_to_f32(" + ptr("bool", ins[0]) + ", " + ptr("float", y) + ", " + n + ")");
    } else {
      return unsupported_types();
    }
    return std::nullopt;
  }
  if (op == "sum" || op == "mean" || op == "max" || op == "min") {
    const char* t = one_real_type(ins, outs);
    if (!t) return unsupported_types();
    const auto& axes = node.attrs.at("axes").as<std::vector<std::int64_t>>();
    std::uint32_t mask = 0;
    for (auto a : axes) {
      auto ax = axis_of(a, ins[0].shape.size());
      if (!ax) return "`" + op + "` names an axis outside its operand";
      mask |= 1u << *ax;
    }
    if (axes.empty()) mask = ins[0].shape.empty() ? 0 : (1u << ins[0].shape.size()) - 1;  // empty axes: all
    sink.body += line("wk::reduce<wk::Reduce::" + op + ", " + t + ">(" + ptr(t, ins[0]) + ", " + ptr(t, y) + ", " +
                      std::to_string(ins[0].shape.size()) + ", " + table(sink, ins[0].shape) + ", " + std::to_string(mask) +
                      "u)");
    return std::nullopt;
  }
  if (op == "softmax" || op == "log_softmax") {
    if (!all_f32(ins) || !all_f32(outs)) return unsupported_types();
    auto ax = axis_of(node.attrs.at("axis").as<std::int64_t>(), ins[0].shape.size());
    if (!ax) return "`" + op + "` names an axis outside its operand";
    sink.body += line(std::string("wk::softmax_f32<") + (op == "log_softmax" ? "true" : "false") + ">(" +
                      ptr("float", ins[0]) + ", " + ptr("float", y) + ", " + std::to_string(ins[0].shape.size()) + ", " +
                      table(sink, ins[0].shape) + ", " + std::to_string(*ax) + ")");
    return std::nullopt;
  }
  if (op == "matmul") {
    const char* t = one_real_type(ins, outs);
    if (!t) return unsupported_types();
    const Dims &sa = ins[0].shape, &sb = ins[1].shape;
    Dims batch(y.shape.begin(), y.shape.end() - 2);
    Dims ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    bool ta = node.attrs.at("transpose_a").as<bool>(), tb = node.attrs.at("transpose_b").as<bool>();
    std::string batch_table = table(sink, batch);
    std::string a_strides = table(sink, broadcast_strides(ba, batch));
    std::string b_strides = table(sink, broadcast_strides(bb, batch));
    sink.body += line(std::string(y.dtype == DType::f64 ? "wk::matmul_f64(" : "wk::matmul_f32(") + ptr(t, ins[0]) + ", " +
                      ptr(t, ins[1]) + ", " + ptr(t, y) +
                      ", wk::MatmulShape{" + std::to_string(sa[sa.size() - 2]) + ", " + std::to_string(sa.back()) + ", " +
                      std::to_string(sb[sb.size() - 2]) + ", " + std::to_string(sb.back()) + ", " + (ta ? "true" : "false") +
                      ", " + (tb ? "true" : "false") + ", " + std::to_string(batch.size()) + ", " + batch_table + ", " +
                      a_strides + ", " + b_strides + "})");
    return std::nullopt;
  }
  if (op == "linear") {
    if (!all_f32(ins) || !all_f32(outs)) return unsupported_types();
    std::uint64_t N = ins[1].shape[0], K = ins[1].shape[1];
    std::uint64_t rows = count(Dims(ins[0].shape.begin(), ins[0].shape.end() - 1));
    sink.body += line("wk::linear_f32(" + ptr("float", ins[0]) + ", " + ptr("float", ins[1]) + ", " +
                      (ins.size() > 2 ? ptr("float", ins[2]) : std::string("nullptr")) + ", " + ptr("float", y) + ", " +
                      std::to_string(rows) + ", " + std::to_string(N) + ", " + std::to_string(K) + ")");
    return std::nullopt;
  }
  if (op == "reshape") {
    if (!real_type(y.dtype) && !dtype_info(y.dtype).is_integer && y.dtype != DType::boolean) return unsupported_types();
    sink.body += copy(ins[0], y);
    return std::nullopt;
  }
  if (op == "transpose" || op == "broadcast_to") {
    const char* t = one_real_type(ins, outs);
    if (!t) return unsupported_types();
    Dims strides;
    if (op == "broadcast_to") {
      strides = broadcast_strides(ins[0].shape, y.shape);
    } else {
      const Dims& sx = ins[0].shape;
      Dims own(sx.size(), 1);
      for (std::size_t d = sx.size(); d-- > 1;) own[d - 1] = own[d] * sx[d];
      auto perm = node.attrs.at("perm").as<std::vector<std::int64_t>>();
      if (perm.empty())
        for (std::size_t d = sx.size(); d-- > 0;) perm.push_back(static_cast<std::int64_t>(d));
      for (auto p : perm) {
        auto ax = axis_of(p, sx.size());
        if (!ax) return "`transpose` names an axis outside its operand";
        strides.push_back(own[*ax]);
      }
    }
    std::string shape = table(sink, y.shape);
    std::string sx = table(sink, strides);
    sink.body += line(std::string("wk::gather_strided<") + t + ">(" + ptr(t, ins[0]) + ", " + ptr(t, y) + ", " +
                      std::to_string(y.shape.size()) + ", " + shape + ", " + sx + ")");
    return std::nullopt;
  }
  if (op == "slice") {
    const char* t = one_real_type(ins, outs);
    if (!t) return unsupported_types();
    // ops::slice_axes resolves the bounds as the reference does; a negative step is a
    // negative stride (modulo 2^32, as the kernel's offsets are).
    std::vector<ops::SliceAxis> axes = ops::slice_axes(ins[0].shape, ops::Attrs(node.attrs));
    Dims own = row_major(ins[0].shape), strides;
    std::uint64_t base = 0;
    for (std::size_t d = 0; d < axes.size(); ++d) {
      if (axes[d].count > 0) base += static_cast<std::uint64_t>(axes[d].start) * own[d];
      strides.push_back(static_cast<std::uint32_t>(static_cast<std::int64_t>(own[d]) * axes[d].step));
    }
    std::string shape = table(sink, y.shape);
    std::string sx = table(sink, strides);
    if (count(y.shape) > 0)
      sink.body += line(std::string("wk::gather_strided<") + t + ">(" + ptr(t, ins[0]) + " + " + std::to_string(base) + ", " +
                        ptr(t, y) + ", " + std::to_string(y.shape.size()) + ", " + shape + ", " + sx + ")");
    return std::nullopt;
  }
  if (op == "concat") {
    const char* t = one_real_type(ins, outs);
    if (!t) return unsupported_types();
    auto ax = axis_of(node.attrs.at("axis").as<std::int64_t>(), y.shape.size());
    if (!ax) return "`concat` names an axis outside its result";
    Dims own = row_major(y.shape);
    std::string sy = table(sink, own);
    std::uint64_t at = 0;
    for (const auto& x : ins) {
      std::string shape = table(sink, x.shape);
      if (count(x.shape) > 0)
        sink.body += line(std::string("wk::scatter_strided<") + t + ">(" + ptr(t, x) + ", " + ptr(t, y) + " + " +
                          std::to_string(at * own[*ax]) + ", " + std::to_string(x.shape.size()) + ", " + shape + ", " + sy + ")");
      at += x.shape[*ax];
    }
    return std::nullopt;
  }
  if (op == "iota") {
    if (y.dtype != DType::f32) return unsupported_types();
    auto ax = axis_of(node.attrs.at("axis").as<std::int64_t>(), y.shape.size());
    if (!ax) return "`iota` names an axis outside its result";
    sink.body += line("wk::iota_f32(" + ptr("float", y) + ", " + std::to_string(y.shape.size()) + ", " +
                      table(sink, y.shape) + ", " + std::to_string(*ax) + ")");
    return std::nullopt;
  }
  return "`" + op + "` has no wasm kernel yet (`rung ops --missing wasm` lists the ops without one)";
}

}  // namespace rung::wasm
