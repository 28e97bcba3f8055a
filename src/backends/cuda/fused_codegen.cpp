#include "backends/cuda/fused_codegen.h"

#include <cstring>
#include <map>
#include <unordered_map>

#include "backends/cuda/fused_module.h"
#include "base/hash.h"
#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::cuda {

namespace {

// The scalar formula of each fusible op: the functor of ops/numerics/elementwise.h (the same
// source the reference and the per-op kernels call).
const std::map<std::string, std::string, std::less<>>& functors() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"add", "Add"}, {"sub", "Sub"}, {"mul", "Mul"}, {"div", "Div"}, {"remainder", "Rem"}, {"maximum", "Maximum"}, {"minimum", "Minimum"},
      {"pow", "Pow"}, {"neg", "Neg"}, {"abs", "Abs"}, {"square", "Square"}, {"sqrt", "Sqrt"}, {"rsqrt", "Rsqrt"},
      {"reciprocal", "Reciprocal"}, {"relu", "Relu"}, {"exp", "Exp"}, {"log", "Log"}, {"sin", "Sin"}, {"cos", "Cos"},
      {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"silu", "Silu"}, {"erf", "Erf"}, {"floor", "Floor"}, {"ceil", "Ceil"}, {"round", "Round"}, {"asin", "Asin"},
      {"acos", "Acos"}, {"atan", "Atan"}, {"eq", "Eq"}, {"ne", "Ne"},
      {"lt", "Lt"}, {"le", "Le"}, {"gt", "Gt"}, {"ge", "Ge"}, {"logical_and", "LogicalAnd"}, {"logical_or", "LogicalOr"},
      {"logical_xor", "LogicalXor"}, {"logical_not", "LogicalNot"}};
  return m;
}

std::string dt(DType t) { return std::to_string(static_cast<int>(t)); }
std::string hex(std::uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s + "ull";
}
std::string f64_literal(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, 8);
  return "rung::num::f64_from_bits(" + hex(u) + ")";
}

// The hash of everything the generated text includes (the embedded headers) and of the
// compile options: part of each kernel's identity, so a change to the numerics headers or
// to the options is a different kernel even where the generated text is the same.
std::string included_text_hash() {
  static const std::string h = [] {
    std::string all;
    for (const auto& [name, text] : nvrtc_embedded_headers()) all += std::string(name) + '\0' + text + '\0';
    for (const auto& o : fused_compile_options("<arch>")) all += o + '\0';
    return sha3_256(all).hex();
  }();
  return h;
}

bool fusible_family(const std::string& f) { return f == "elementwise" || f == "compare" || f == "cast"; }

struct Val {
  std::string name;  // compute-type variable in the body
  DType dtype = DType::f32;
  bool scalar = false;
  std::string raw;   // storage expression, for params and constants (results pass them through unchanged)
};

// `__device__ unsigned long long <name>(unsigned long long i)`: the argument's element for
// flat index i of the space, sum over merged dims of ((i / inner) % extent) * stride with
// every factor a literal (the outermost dim needs no modulo: i < the space's size).
std::string offset_function(const std::string& name, const std::vector<BroadcastDim>& dims) {
  std::string expr;
  std::uint64_t inner = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    const BroadcastDim& b = dims[d];
    if (b.stride != 0) {
      std::string t = inner == 1 ? "i" : "(i / " + std::to_string(inner) + "ull)";
      if (d > 0) t = "(" + t + " % " + std::to_string(b.extent) + "ull)";
      if (b.stride != 1) t += " * " + std::to_string(b.stride) + "ull";
      expr = expr.empty() ? t : t + " + " + expr;
    }
    inner *= b.extent;
  }
  if (expr.empty()) expr = "0ull * i";  // one element, broadcast everywhere
  return "__device__ __forceinline__ unsigned long long " + name + "(unsigned long long i) { return " + expr + "; }\n";
}

}  // namespace

std::optional<FusedSource> generate_fused_kernel(const Graph& g, const Region& r, std::span<const FusedValue> args,
                                                 std::string& why) {
  if (args.size() != r.params.size()) {
    why = "it takes " + std::to_string(r.params.size()) + " arguments, " + std::to_string(args.size()) + " were given";
    return std::nullopt;
  }
  for (const auto& a : args)
    if (dtype_info(a.dtype).is_quantized) {
      why = "an argument has the block-quantized dtype " + std::string(dtype_name(a.dtype));
      return std::nullopt;
    }
  if (args.size() + r.results.size() > kFusedMaxOperands) {
    why = std::to_string(args.size() + r.results.size()) + " arguments and results (the kernel takes at most " +
          std::to_string(kFusedMaxOperands) + ")";
    return std::nullopt;
  }
  std::unordered_map<NodeId, Val> vals;
  std::string body;
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    Val v{"v" + std::to_string(r.params[i]), args[i].dtype, args[i].scalar, "a" + std::to_string(i)};
    body += "  const C<" + dt(v.dtype) + "> " + v.name + " = widen<" + dt(v.dtype) + ">(" + v.raw + ");\n";
    vals[r.params[i]] = v;
  }
  for (NodeId id : nodes_in_region(g, r)) {
    if (vals.count(id)) continue;
    const Node& node = g.node(id);
    std::string name = "v" + std::to_string(id);
    if (node.opcode == opcode::kConst) {
      const TensorType& t = node.outputs[0];
      if (t.rank() != 0 || dtype_info(t.dtype).is_quantized) {
        why = "a constant of type " + t.to_string() + " (only rank-0 constants are written into the kernel)";
        return std::nullopt;
      }
      const Bytes& b = node.attrs.at("value").as<Bytes>();
      std::uint64_t bits = 0;
      std::memcpy(&bits, b.data(), std::min<std::size_t>(b.size(), 8));
      Val v{name, t.dtype, true, "from_raw<" + dt(t.dtype) + ">(" + hex(bits) + ")"};
      body += "  const C<" + dt(v.dtype) + "> " + name + " = widen<" + dt(v.dtype) + ">(" + v.raw + ");\n";
      vals[id] = v;
      continue;
    }
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    if (!def || !fusible_family(def->family)) {
      why = "`" + node.opcode + "` is not an elementwise op";
      return std::nullopt;
    }
    if (node.outputs.size() != 1) {
      why = "`" + node.opcode + "` has more than one result";
      return std::nullopt;
    }
    std::vector<TensorType> in_types;
    std::vector<const Val*> in;
    bool all_scalar = true;
    for (const auto& ref : node.inputs) {
      auto it = vals.find(ref.node);
      if (it == vals.end() || ref.output != 0) {
        why = "an operand of `" + node.opcode + "` comes from outside the region";
        return std::nullopt;
      }
      in.push_back(&it->second);
      all_scalar = all_scalar && it->second.scalar;
      TensorType t;
      t.dtype = it->second.dtype;
      if (!it->second.scalar) t.shape = {Dim::fixed(2)};
      in_types.push_back(t);
    }
    std::vector<std::string> errors;
    auto typed = ops::infer_types(*def, in_types, node.attrs, errors);
    if (!typed || typed->results.size() != 1) {
      why = "`" + node.opcode + "` does not type-check: " + (errors.empty() ? std::string("no single result") : errors.front());
      return std::nullopt;
    }
    DType out = typed->results[0].dtype;
    std::string expr;
    const std::string& op = node.opcode;
    auto fn = functors().find(op);
    if (fn != functors().end()) {
      expr = "rung::num::" + fn->second + "{}(";
      for (std::size_t k = 0; k < in.size(); ++k) expr += (k ? ", " : "") + in[k]->name;
      expr += ")";
    } else if (op == "gelu") {
      expr = std::string("rung::num::") + (typed->attrs.string("approximate") == "tanh" ? "GeluTanh" : "GeluErf") + "{}(" +
             in[0]->name + ")";
    } else if (op == "bit_shift") {
      expr = std::string("rung::num::") + (typed->attrs.string("direction") == "right" ? "ShiftRight" : "ShiftLeft") + "{}(" +
             in[0]->name + ", " + in[1]->name + ")";
    } else if (op == "clamp") {
      expr = "clamp_value(" + in[0]->name + ", " + f64_literal(typed->attrs.real("min")) + ", " +
             f64_literal(typed->attrs.real("max")) + ")";
    } else if (op == "where") {
      expr = "(" + in[0]->name + " ? " + in[1]->name + " : " + in[2]->name + ")";
    } else if (op == "cast") {
      expr = "cast_value<" + dt(in[0]->dtype) + ", " + dt(out) + ">(" + in[0]->name + ")";
    } else {
      why = "`" + op + "` has no fused CUDA formula";
      return std::nullopt;
    }
    body += "  const C<" + dt(out) + "> " + name + " = round_to<" + dt(out) + ">(" + expr + ");\n";
    vals[id] = Val{name, out, all_scalar, ""};
  }

  FusedSource fs;
  fs.args.assign(args.begin(), args.end());
  std::string store;
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const Val& v = vals.at(r.results[k].node);
    fs.results.push_back({v.dtype, v.scalar});
    // A parameter or constant passed through keeps its bits; computed values are narrowed
    // (canonical NaNs), as the CPU's fused executor does.
    store += "  r" + std::to_string(k) + " = " + (v.raw.empty() ? "narrow<" + dt(v.dtype) + ">(" + v.name + ")" : v.raw) + ";\n";
  }

  // The text: body(), then the kernel with its scalar and 4-wide paths.
  std::string s;
  s += "// rung fused elementwise region `" + r.name + "` (generated by src/backends/cuda/fused_codegen.cpp)\n";
  s += "#include \"backends/cuda/fused_device.cuh\"\nusing namespace rung::fused;\n\n";
  s += "__device__ __forceinline__ void body(";
  std::string sep;
  for (std::size_t i = 0; i < args.size(); ++i, sep = ", ") s += sep + "S<" + dt(args[i].dtype) + "> a" + std::to_string(i);
  for (std::size_t k = 0; k < fs.results.size(); ++k, sep = ", ")
    s += sep + "S<" + dt(fs.results[k].dtype) + ">& r" + std::to_string(k);
  s += ") {\n" + body + store + "}\n\n";
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i].scalar && !args[i].broadcast.empty()) s += offset_function("bcast_off" + std::to_string(i), args[i].broadcast);
  s += std::string("extern \"C\" __global__ void __launch_bounds__(256) ") + kFusedKernelName + "(";
  sep.clear();
  for (std::size_t i = 0; i < args.size(); ++i, sep = ", ")
    s += sep + "const S<" + dt(args[i].dtype) + ">* __restrict__ p" + std::to_string(i);
  for (std::size_t k = 0; k < fs.results.size(); ++k, sep = ", ")
    s += sep + "S<" + dt(fs.results[k].dtype) + ">* __restrict__ q" + std::to_string(k);
  s += sep + "unsigned long long n, int vec) {\n";
  s += "  const unsigned long long tid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;\n";
  s += "  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;\n";
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].scalar) s += "  const S<" + dt(args[i].dtype) + "> s" + std::to_string(i) + " = p" + std::to_string(i) + "[0];\n";
  // Groups of 4 elements with 16-byte (or 4-element) accesses when `vec` (a broadcast
  // argument is read element by element at its offsets; the dense ones stay 16-byte).
  s += "  if (vec) {\n    const unsigned long long n4 = n / 4;\n";
  s += "    for (unsigned long long i = tid; i < n4; i += step) {\n";
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i].scalar && args[i].broadcast.empty())
      s += "      const Quad<S<" + dt(args[i].dtype) + ">> x" + std::to_string(i) + " = reinterpret_cast<const Quad<S<" +
           dt(args[i].dtype) + ">>*>(p" + std::to_string(i) + ")[i];\n";
  for (std::size_t k = 0; k < fs.results.size(); ++k)
    s += "      " + std::string(fs.results[k].scalar ? "S<" : "Quad<S<") + dt(fs.results[k].dtype) +
         (fs.results[k].scalar ? "> z" : ">> y") + std::to_string(k) + ";\n";
  s += "#pragma unroll\n      for (int k = 0; k < 4; ++k) body(";
  sep.clear();
  for (std::size_t i = 0; i < args.size(); ++i, sep = ", ")
    s += sep + (args[i].scalar              ? "s" + std::to_string(i)
                : args[i].broadcast.empty() ? "x" + std::to_string(i) + ".v[k]"
                                            : "p" + std::to_string(i) + "[bcast_off" + std::to_string(i) + "(i * 4 + k)]");
  for (std::size_t k = 0; k < fs.results.size(); ++k, sep = ", ")
    s += sep + (fs.results[k].scalar ? "z" + std::to_string(k) : "y" + std::to_string(k) + ".v[k]");
  s += ");\n";
  for (std::size_t k = 0; k < fs.results.size(); ++k) {
    std::string ks = std::to_string(k);
    if (fs.results[k].scalar) s += "      if (i == 0) q" + ks + "[0] = z" + ks + ";\n";
    else s += "      reinterpret_cast<Quad<S<" + dt(fs.results[k].dtype) + ">>*>(q" + ks + ")[i] = y" + ks + ";\n";
  }
  s += "    }\n  }\n";
  // Elements one at a time: all of them without `vec`, else the tail past the last group.
  // With n = 0 one pass still runs, on zeros, for the rank-0 results (computed from rank-0
  // operands only); nothing full-size is read or written then.
  s += "  const unsigned long long end = n ? n : 1;\n";
  s += "  for (unsigned long long i = (vec ? n / 4 * 4 : 0) + tid; i < end; i += step) {\n";
  for (std::size_t k = 0; k < fs.results.size(); ++k)
    s += "    S<" + dt(fs.results[k].dtype) + "> z" + std::to_string(k) + ";\n";
  s += "    body(";
  sep.clear();
  for (std::size_t i = 0; i < args.size(); ++i, sep = ", ") {
    std::string is = std::to_string(i);
    std::string at = args[i].broadcast.empty() ? "i" : "bcast_off" + is + "(i)";
    s += sep + (args[i].scalar ? "s" + is : "(n ? p" + is + "[" + at + "] : S<" + dt(args[i].dtype) + ">{})");
  }
  for (std::size_t k = 0; k < fs.results.size(); ++k, sep = ", ") s += sep + "z" + std::to_string(k);
  s += ");\n";
  for (std::size_t k = 0; k < fs.results.size(); ++k) {
    std::string ks = std::to_string(k);
    if (fs.results[k].scalar) s += "    if (i == 0) q" + ks + "[0] = z" + ks + ";\n";
    else s += "    if (n) q" + ks + "[i] = z" + ks + ";\n";
  }
  s += "  }\n}\n";
  fs.source = std::move(s);
  fs.hash = sha3_256(fs.source + "\n// included text and NVRTC options: " + included_text_hash()).hex();
  return fs;
}

}  // namespace rung::cuda
