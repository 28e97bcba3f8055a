#include "cuda_cases.h"

#include <cmath>
#include <limits>
#include <random>

namespace rung::cuda_test {

ops::HostTensor random_tensor(DType dt, ops::Extents shape, std::uint64_t seed, bool specials) {
  ops::HostTensor t(dt, shape);
  std::mt19937_64 rng(seed);
  std::uint64_t n = t.numel();
  const DTypeInfo& info = dtype_info(dt);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t r = rng();
    if (info.is_float) {
      double v = std::ldexp(static_cast<double>(r >> 11) / 9007199254740992.0 - 0.5, static_cast<int>(r % 7) - 1);
      if (specials) {
        switch (r % 97) {
          case 0: v = std::numeric_limits<double>::quiet_NaN(); break;
          case 1: v = std::numeric_limits<double>::infinity(); break;
          case 2: v = -std::numeric_limits<double>::infinity(); break;
          case 3: v = -0.0; break;
          case 4: v = 0.0; break;
          case 5: v = 1e-40; break;  // an f32 subnormal
          case 6: v = -3e38; break;
          case 7: v = 90.5; break;
          default: break;
        }
      }
      t.store_f64(i, v);
    } else if (dt == DType::boolean) {
      t.store_bool(i, (r & 1) != 0);
    } else {
      t.store_int(i, specials ? r : r % 200);
    }
  }
  return t;
}

namespace {

using Ext = ops::Extents;
const DType kFloats[] = {DType::f32, DType::f16, DType::bf16, DType::f64};

AttrMap attrs(std::initializer_list<std::pair<const std::string, AttrValue>> l) { return AttrMap(l); }

}  // namespace

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  std::uint64_t seed = 1;
  auto R = [&](DType dt, Ext s, bool sp = true) { return random_tensor(dt, std::move(s), seed++, sp); };

  // Elementwise: unary over every float dtype (f64 only where the op admits it).
  for (const char* op : {"neg", "abs", "square", "sqrt", "rsqrt", "reciprocal", "relu"})
    for (DType dt : kFloats) cs.push_back({op, {R(dt, {37, 129})}, {}, std::string(op) + " " + std::string(dtype_name(dt))});
  for (const char* op : {"exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "erf"})
    for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
      ops::HostTensor x = R(dt, {41, 257});
      for (std::uint64_t i = 0; i < x.numel(); i += 13) x.store_f32(i, x.load_f32(i) * 3000.0f);  // big arguments too
      cs.push_back({op, {x}, {}, std::string(op) + " " + std::string(dtype_name(dt))});
    }
  for (const char* op : {"floor", "ceil", "round"})
    for (DType dt : kFloats) {
      ops::HostTensor x = R(dt, {37, 129});
      for (std::uint64_t i = 0; i < x.numel(); i += 7) x.store_f64(i, x.load_f64(i) * 1e15);  // past 2^23 and 2^52 too
      cs.push_back({op, {x}, {}, std::string(op) + " " + std::string(dtype_name(dt))});
    }
  for (const char* op : {"asin", "acos", "atan"})
    for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
      ops::HostTensor x = R(dt, {41, 257});
      for (std::uint64_t i = 0; i < x.numel(); i += 3) x.store_f32(i, x.load_f32(i) * 0.25f);  // inside [-1, 1] too
      cs.push_back({op, {x}, {}, std::string(op) + " " + std::string(dtype_name(dt))});
    }
  for (const char* dir : {"left", "right"})
    for (DType dt : {DType::u8, DType::u16, DType::u32, DType::u64}) {
      ops::HostTensor y = R(dt, {129});
      for (std::uint64_t i = 0; i < y.numel(); ++i) y.store_int(i, y.load_u64(i) % 70);  // below and past the width
      cs.push_back({"bit_shift", {R(dt, {37, 129}), y}, attrs({{"direction", std::string(dir)}}),
                    std::string("bit_shift ") + dir + " " + std::string(dtype_name(dt)) + " row bcast"});
    }
  cs.push_back({"gelu", {R(DType::f32, {33, 300})}, {}, "gelu erf"});
  cs.push_back({"gelu", {R(DType::f32, {33, 300})}, attrs({{"approximate", std::string("tanh")}}), "gelu tanh"});
  for (DType dt : {DType::i32, DType::i8, DType::i64})
    for (const char* op : {"neg", "abs", "square", "relu"}) cs.push_back({op, {R(dt, {1000})}, {}, std::string(op) + " int"});
  cs.push_back({"clamp", {R(DType::f32, {999})}, attrs({{"min", -0.25}, {"max", 0.5}}), "clamp"});
  cs.push_back({"clamp", {R(DType::f64, {999})}, attrs({{"min", 0.5}, {"max", -0.25}}), "clamp min>max"});

  // Binary with broadcasting.
  for (const char* op : {"add", "sub", "mul", "div", "remainder", "maximum", "minimum"}) {
    for (DType dt : {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::i8, DType::u8, DType::i64, DType::u64}) {
      cs.push_back({op, {R(dt, {37, 129}), R(dt, {129})}, {}, std::string(op) + " " + std::string(dtype_name(dt)) + " row bcast"});
    }
    cs.push_back({op, {R(DType::f32, {5, 1, 7}), R(DType::f32, {3, 1})}, {}, std::string(op) + " 2-sided bcast"});
    cs.push_back({op, {R(DType::f32, {37, 129}), R(DType::f32, {37, 129})}, {}, std::string(op) + " dense f32 (vector path + tail)"});
  }
  cs.push_back({"pow", {R(DType::f32, {64, 65}), R(DType::f32, {64, 65})}, {}, "pow"});
  {
    ops::HostTensor b = R(DType::f32, {65});
    for (std::uint64_t i = 0; i < 65; ++i) b.store_f32(i, static_cast<float>(static_cast<int>(i) - 32) * 0.5f);
    cs.push_back({"pow", {R(DType::f32, {64, 65}), b}, {}, "pow integer exponents"});
  }
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (DType dt : {DType::f32, DType::i32, DType::bf16})
      cs.push_back({op, {R(dt, {31, 40}), R(dt, {1, 40})}, {}, std::string(op) + " " + std::string(dtype_name(dt))});
  for (const char* op : {"logical_and", "logical_or", "logical_xor"})
    cs.push_back({op, {R(DType::boolean, {300}), R(DType::boolean, {300})}, {}, op});
  cs.push_back({"logical_not", {R(DType::boolean, {300})}, {}, "logical_not"});
  cs.push_back({"where", {R(DType::boolean, {37, 1}), R(DType::f32, {37, 129}), R(DType::f32, {129})}, {}, "where f32"});
  cs.push_back({"where", {R(DType::boolean, {50}), R(DType::i64, {50}), R(DType::i64, {1})}, {}, "where i64"});

  // Casts between all pairs of a representative set.
  const DType cast_types[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i64, DType::i32,
                              DType::i8,  DType::u8,  DType::u32,  DType::u64, DType::boolean};
  for (DType from : cast_types)
    for (DType to : cast_types) {
      ops::HostTensor x = R(from, {513});
      if (dtype_info(from).is_float)
        for (std::uint64_t i = 0; i < 513; i += 3) x.store_f64(i, x.load_f64(i) * 1e12);  // saturation and rounding
      cs.push_back({"cast", {x}, attrs({{"to", to}}), "cast " + std::string(dtype_name(from)) + "->" + std::string(dtype_name(to))});
    }

  // Reductions: one chunk, several chunks, three tree levels, strided axes, integers.
  using V = std::vector<std::int64_t>;
  for (const char* op : {"sum", "mean", "prod", "max", "min", "variance", "logsumexp"}) {
    for (DType dt : {DType::f32, DType::bf16, DType::f64}) {
      if (std::string(op) == "logsumexp" && dt == DType::f64) continue;
      cs.push_back({op, {R(dt, {5, 7000, 3})}, attrs({{"axes", V{1}}}), std::string(op) + " middle axis " + std::string(dtype_name(dt))});
      cs.push_back({op, {R(dt, {300, 130}, false)}, attrs({{"axes", V{-1}}, {"keepdims", true}}), std::string(op) + " rows"});
    }
    cs.push_back({op, {R(DType::f32, {6, 50, 7}, false)}, attrs({{"axes", V{0, 2}}}), std::string(op) + " axes 0,2"});
    cs.push_back({op, {R(DType::f32, {100000}, false)}, attrs({{"axes", V{}}}), std::string(op) + " all, 25 chunks"});
  }
  cs.push_back({"sum", {R(DType::f32, {(1u << 24) + 4099}, false)}, attrs({{"axes", V{}}}), "sum 3 levels"});
  cs.push_back({"variance", {R(DType::f32, {40, 999}, false)}, attrs({{"axes", V{1}}, {"correction", std::int64_t{1}}}), "variance unbiased"});
  for (const char* op : {"sum", "prod", "max", "min"})
    for (DType dt : {DType::i32, DType::u8, DType::i64})
      cs.push_back({op, {R(dt, {17, 5000})}, attrs({{"axes", V{1}}}), std::string(op) + " int " + std::string(dtype_name(dt))});
  for (const char* op : {"argmax", "argmin"}) {
    cs.push_back({op, {R(DType::f32, {40, 333})}, attrs({{"axis", std::int64_t{1}}}), std::string(op) + " f32 with NaN"});
    cs.push_back({op, {R(DType::f32, {40, 333}, false)}, attrs({{"axis", std::int64_t{0}}}), std::string(op) + " axis 0"});
    cs.push_back({op, {R(DType::i32, {3, 70000})}, attrs({{"axis", std::int64_t{-1}}}), std::string(op) + " i32"});
  }

  // softmax family: warp rows, block rows (several chunks), strided axis.
  for (const char* op : {"softmax", "log_softmax"}) {
    cs.push_back({op, {R(DType::f32, {64, 1000}, false)}, attrs({{"axis", std::int64_t{-1}}}), std::string(op) + " rows"});
    cs.push_back({op, {R(DType::f32, {3, 9000, 2}, false)}, attrs({{"axis", std::int64_t{1}}}), std::string(op) + " long strided"});
    cs.push_back({op, {R(DType::bf16, {8, 77})}, attrs({{"axis", std::int64_t{0}}}), std::string(op) + " bf16 with specials"});
  }

  // matmul: every transpose combination, tails in every dim, broadcast batches, dtypes.
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Ext sa = ta ? Ext{70, 130} : Ext{130, 70}, sb = tb ? Ext{200, 70} : Ext{70, 200};
      cs.push_back({"matmul", {R(DType::f32, sa), R(DType::f32, sb)}, attrs({{"transpose_a", ta}, {"transpose_b", tb}}),
                    std::string("matmul ta=") + (ta ? "1" : "0") + " tb=" + (tb ? "1" : "0")});
    }
  cs.push_back({"matmul", {R(DType::f32, {3, 1, 33, 17}), R(DType::f32, {4, 17, 20})}, {}, "matmul broadcast batch"});
  // The pipelined SGEMM (16-byte chunks: extents divisible by 4): every layout, edge tiles in
  // M and N, a last k tile of one 4-step group (K = 132), broadcast batches, specials.
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Ext sa = ta ? Ext{132, 260} : Ext{260, 132}, sb = tb ? Ext{196, 132} : Ext{132, 196};
      cs.push_back({"matmul", {R(DType::f32, sa), R(DType::f32, sb)}, attrs({{"transpose_a", ta}, {"transpose_b", tb}}),
                    std::string("matmul pipelined ta=") + (ta ? "1" : "0") + " tb=" + (tb ? "1" : "0")});
    }
  cs.push_back({"matmul", {R(DType::f32, {3, 1, 36, 20}), R(DType::f32, {4, 20, 44})}, {}, "matmul pipelined broadcast batch"});
  cs.push_back({"matmul", {R(DType::f32, {4, 4}), R(DType::f32, {4, 4})}, {}, "matmul pipelined 4x4x4"});
  // K % 4 != 0 with m- and n-contiguous operands (A transposed, B plain): the pipelined path
  // applies and its last k group is partial; digits' weight gradient x^T dh, and K = 1..3 past
  // a group.
  cs.push_back({"matmul", {R(DType::f32, {1497, 64}), R(DType::f32, {1497, 32})}, attrs({{"transpose_a", true}}),
                "matmul pipelined ta=1 K=1497 (partial last group)"});
  for (std::uint64_t K : {129, 130, 131})
    cs.push_back({"matmul", {R(DType::f32, {K, 68}), R(DType::f32, {K, 132})}, attrs({{"transpose_a", true}}),
                  "matmul pipelined ta=1 K=" + std::to_string(K)});
  cs.push_back({"matmul", {R(DType::f32, {300, 1000}, false), R(DType::f32, {1000, 260}, false)}, {}, "matmul K=1000"});
  cs.push_back({"matmul", {R(DType::f32, {5, 0}), R(DType::f32, {0, 7})}, {}, "matmul K=0"});
  for (DType dt : {DType::f16, DType::bf16, DType::f64})
    cs.push_back({"matmul", {R(dt, {40, 50}), R(dt, {50, 30})}, {}, std::string("matmul ") + std::string(dtype_name(dt))});
  cs.push_back({"linear", {R(DType::f32, {2, 45, 64}), R(DType::f32, {33, 64}), R(DType::f32, {33})}, {}, "linear bias"});
  cs.push_back({"linear", {R(DType::f32, {45, 64}), R(DType::f32, {33, 64})}, {}, "linear"});

  // Shape ops.
  cs.push_back({"reshape", {R(DType::f32, {6, 10})}, attrs({{"shape", Shape{Dim::fixed(3), Dim::fixed(20)}}}), "reshape"});
  cs.push_back({"broadcast_to", {R(DType::bf16, {3, 1})}, attrs({{"shape", Shape{Dim::fixed(2), Dim::fixed(3), Dim::fixed(5)}}}), "broadcast_to"});
  cs.push_back({"transpose", {R(DType::f32, {4, 5, 6})}, attrs({{"perm", V{2, 0, 1}}}), "transpose perm"});
  cs.push_back({"transpose", {R(DType::i8, {4, 5, 6})}, {}, "transpose reverse"});
  cs.push_back({"slice", {R(DType::f32, {10, 12})}, attrs({{"starts", V{1, 11}}, {"ends", V{9, -100}}, {"steps", V{3, -2}}}), "slice steps"});
  cs.push_back({"slice", {R(DType::f64, {10, 12})}, attrs({{"starts", V{-4}}, {"ends", V{100}}, {"axes", V{1}}}), "slice axes"});
  cs.push_back({"concat", {R(DType::f32, {2, 3}), R(DType::f32, {2, 5}), R(DType::f32, {2, 1})}, attrs({{"axis", std::int64_t{1}}}), "concat"});
  cs.push_back({"expand_like", {R(DType::f32, {4}), R(DType::f32, {4, 6})}, attrs({{"axes", V{1}}}), "expand_like"});
  cs.push_back({"zeros_like", {R(DType::f32, {4, 6})}, {}, "zeros_like"});
  cs.push_back({"ones_like", {R(DType::bf16, {4, 6})}, {}, "ones_like"});

  // Normalisation (warp-sized and multi-chunk groups), random draws, optimizer steps.
  cs.push_back({"layer_norm", {R(DType::f32, {7, 300}), R(DType::f32, {300}), R(DType::f32, {300})}, {}, "layer_norm"});
  cs.push_back({"layer_norm", {R(DType::bf16, {5, 5000}, false)}, {}, "layer_norm bf16 multi-chunk"});
  cs.push_back({"rms_norm", {R(DType::f32, {9, 768}, false), R(DType::f32, {768})}, {}, "rms_norm"});
  cs.push_back({"rms_norm", {R(DType::f32, {4, 6, 10}), R(DType::f32, {6, 10})}, attrs({{"axis", std::int64_t{-2}}}), "rms_norm 2 axes"});
  Shape rshape{Dim::fixed(3), Dim::fixed(333)};
  cs.push_back({"random_bits", {}, attrs({{"shape", rshape}, {"seed", std::int64_t{42}}, {"offset", std::int64_t{3}}, {"position", std::int64_t{5}}}), "random_bits"});
  for (DType dt : {DType::f32, DType::bf16})
    cs.push_back({"random_uniform", {}, attrs({{"shape", rshape}, {"seed", std::int64_t{-7}}, {"low", -2.0}, {"high", 3.0}, {"dtype", dt}}), "random_uniform"});
  cs.push_back({"random_normal", {}, attrs({{"shape", rshape}, {"seed", std::int64_t{9}}, {"position", std::int64_t{3}}, {"mean", 1.0}, {"std", 2.0}}), "random_normal"});
  cs.push_back({"sgd_update", {R(DType::f32, {1000}), R(DType::f32, {1000}), R(DType::f32, {1000})},
                attrs({{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}}), "sgd_update"});
  for (bool decoupled : {false, true}) {
    ops::HostTensor pows = ops::HostTensor::from_f32({2}, std::vector<float>{0.729f, 0.997003f});
    cs.push_back({"adam_update", {R(DType::f32, {1000}, false), R(DType::f32, {1000}), R(DType::f32, {1000}, false),
                                  ops::HostTensor::from_f32({1000}, std::vector<float>(1000, 0.25f)), pows},
                  attrs({{"weight_decay", 0.01}, {"decoupled", decoupled}}), decoupled ? "adamw_update" : "adam_update"});
  }

  // Indexing: valid indices, and one out of range (both backends must refuse).
  auto idx = [&](DType dt, ops::Extents s, std::uint64_t bound) {
    ops::HostTensor t(dt, s);
    std::mt19937_64 rng(seed++);
    for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_int(i, rng() % bound);
    return t;
  };
  cs.push_back({"gather", {R(DType::f32, {10, 7}), idx(DType::i32, {5}, 10)}, {}, "gather axis 0"});
  cs.push_back({"gather", {R(DType::bf16, {4, 10, 3}), idx(DType::i64, {2, 3}, 10)}, attrs({{"axis", std::int64_t{1}}}), "gather axis 1"});
  {
    ops::HostTensor bad = idx(DType::i64, {6}, 10);
    bad.store_int(4, 12);
    cs.push_back({"gather", {R(DType::f32, {10, 7}), bad}, {}, "gather out of range (refused)"});
  }
  cs.push_back({"gather_elements", {R(DType::f32, {10, 7}), idx(DType::i32, {13, 5}, 10)}, {}, "gather_elements axis 0"});
  cs.push_back({"gather_elements", {R(DType::bf16, {4, 10, 3}), idx(DType::i64, {2, 17, 3}, 10)}, attrs({{"axis", std::int64_t{-2}}}),
                "gather_elements axis -2"});
  {
    ops::HostTensor bad = idx(DType::i64, {6, 7}, 10);
    bad.store_int(4, 12);
    cs.push_back({"gather_elements", {R(DType::f32, {10, 7}), bad}, {}, "gather_elements out of range (refused)"});
  }
  for (DType dt : {DType::f32, DType::f16, DType::f64, DType::i32, DType::u8})
    for (int k = 0; k < 4; ++k)
      cs.push_back({"cumsum", {R(dt, {9, 130, 5})},
                    attrs({{"axis", std::int64_t{k - 1}}, {"exclusive", k % 2 == 1}, {"reverse", k >= 2}}),
                    "cumsum " + std::string(dtype_name(dt)) + " variant " + std::to_string(k)});
  cs.push_back({"embedding", {R(DType::f32, {50, 16}), idx(DType::i64, {3, 4}, 50)}, {}, "embedding"});
  for (DType dt : {DType::f32, DType::bf16, DType::i32})
    cs.push_back({"one_hot", {idx(DType::i64, {20}, 10)}, attrs({{"depth", std::int64_t{10}}, {"dtype", dt}}), "one_hot"});
  for (DType dt : {DType::f32, DType::i32})
    cs.push_back({"iota", {}, attrs({{"shape", Shape{Dim::fixed(3), Dim::fixed(4), Dim::fixed(5)}}, {"axis", std::int64_t{1}}, {"dtype", dt}}), "iota"});
  for (DType dt : {DType::f32, DType::bf16}) {
    cs.push_back({"ffn_swiglu", {R(dt, {3, 5, 24}, false), R(dt, {40, 24}, false), R(dt, {40, 24}, false), R(dt, {24, 40}, false)}, {},
                  "ffn_swiglu " + std::string(dtype_name(dt))});
    cs.push_back({"ffn_gelu", {R(dt, {7, 24}, false), R(dt, {40, 24}, false), R(dt, {16, 40}, false), R(dt, {40}), R(dt, {16})},
                  attrs({{"approximate", std::string("tanh")}}), "ffn_gelu " + std::string(dtype_name(dt))});
  }
  cs.push_back({"ffn_gelu", {R(DType::f32, {7, 24}), R(DType::f32, {40, 24}), R(DType::f32, {16, 40})}, {}, "ffn_gelu no bias"});
  for (const char* red : {"none", "sum", "mean"})
    for (DType dt : {DType::f32, DType::f16})
      cs.push_back({"mse", {R(dt, {33, 300}, false), R(dt, {33, 300}, false)}, attrs({{"reduction", std::string(red)}}),
                    std::string("mse ") + red});

  // Bit-copying ops meeting NaNs with payloads or a sign: the outputs must still hold the
  // canonical NaN (the reference canonicalises every output). And slice axes out of order.
  auto poisoned = [&](DType dt, Ext s) {
    ops::HostTensor t = R(dt, std::move(s), false);
    for (std::uint64_t i = 0; i < t.numel(); i += 5) {
      if (dt == DType::f32) t.set_raw<std::uint32_t>(i, i % 2 ? 0x7FC00001u : 0xFFC00000u);
      else if (dt == DType::f64) t.set_raw<std::uint64_t>(i, 0xFFF8000000000001ull);
      else t.set_raw<std::uint16_t>(i, dt == DType::f16 ? 0xFE01 : 0xFFC1);
    }
    return t;
  };
  for (DType dt : kFloats) {
    std::string n(dtype_name(dt));
    cs.push_back({"transpose", {poisoned(dt, {4, 5, 6})}, attrs({{"perm", V{1, 2, 0}}}), "transpose NaN payloads " + n});
    cs.push_back({"slice", {poisoned(dt, {9, 10})}, attrs({{"starts", V{-2, 1}}, {"ends", V{100, 8}}, {"axes", V{1, 0}}}),
                  "slice unsorted axes, NaN payloads " + n});
    cs.push_back({"reshape", {poisoned(dt, {6, 10})}, attrs({{"shape", Shape{Dim::fixed(60)}}}), "reshape NaN payloads " + n});
    cs.push_back({"broadcast_to", {poisoned(dt, {1, 7})}, attrs({{"shape", Shape{Dim::fixed(3), Dim::fixed(7)}}}), "broadcast_to NaN payloads " + n});
    cs.push_back({"concat", {poisoned(dt, {2, 3}), poisoned(dt, {2, 4})}, attrs({{"axis", std::int64_t{1}}}), "concat NaN payloads " + n});
    cs.push_back({"where", {R(DType::boolean, {40}), poisoned(dt, {40}), poisoned(dt, {40})}, {}, "where NaN payloads " + n});
    cs.push_back({"gather", {poisoned(dt, {10, 7}), idx(DType::i32, {6}, 10)}, {}, "gather NaN payloads " + n});
    cs.push_back({"expand_like", {poisoned(dt, {5}), R(DType::u8, {5, 3})}, attrs({{"axes", V{1}}}), "expand_like NaN payloads " + n});
  }
  cs.push_back({"slice", {R(DType::i64, {3, 17, 3})}, attrs({{"starts", V{-4, 3}}, {"ends", V{3, 7}}, {"axes", V{2, 1}}, {"steps", V{1, 3}}}),
                "slice unsorted axes i64"});
  // resize: each mode on every float dtype, nearest on integers, extrapolation.
  for (DType dt : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (const char* mode : {"nearest", "linear", "cubic"})
      cs.push_back({"resize", {R(dt, {2, 9, 7})}, attrs({{"sizes", V{3, 4, 16}}, {"mode", std::string(mode)}, {"coordinate_mode", std::string("pytorch_half_pixel")}}),
                    std::string("resize ") + mode + " " + std::string(dtype_name(dt))});
  cs.push_back({"resize", {R(DType::u8, {5, 6})}, attrs({{"sizes", V{11, 3}}}), "resize nearest u8"});
  cs.push_back({"resize", {R(DType::f32, {8, 8})}, attrs({{"sizes", V{5, 12}}, {"mode", std::string("cubic")}, {"coordinate_mode", std::string("tf_crop_and_resize")},
                                                          {"roi", std::vector<double>{0.2, -0.1, 1.3, 0.7}}, {"extrapolation_value", -1.5}}),
                "resize cubic crop f32"});
  // pad in every mode, arange for float and integer dtypes.
  for (const char* mode : {"constant", "edge", "reflect"})
    for (DType dt : {DType::f32, DType::bf16, DType::i16})
      cs.push_back({"pad", {R(dt, {5, 7, 3})}, attrs({{"pads", V{2, 1, 0, 3, 2, 2}}, {"mode", std::string(mode)}, {"value", -2.0}}),
                    std::string("pad ") + mode + " " + std::string(dtype_name(dt))});
  cs.push_back({"pad", {R(DType::f64, {4, 9})}, attrs({{"pads", V{1, 0, 0, 5}}, {"value", 0.1}}), "pad f64 constant 0.1"});
  for (DType dt : {DType::f32, DType::f16, DType::f64, DType::i32, DType::u8})
    cs.push_back({"arange", {}, attrs({{"start", 3.0}, {"stop", 250.0}, {"step", 1.0}, {"dtype", dt}}), "arange " + std::string(dtype_name(dt))});
  cs.push_back({"arange", {}, attrs({{"start", -1.5}, {"stop", 7.3}, {"step", 0.1}, {"dtype", DType::f32}}), "arange f32 step 0.1"});
  cs.push_back({"arange", {}, attrs({{"start", 100.0}, {"stop", -900.0}, {"step", -7.0}, {"dtype", DType::i64}}), "arange i64 down"});

  // CSR: a random canonical matrix (sorted columns, empty rows included) against dense operands.
  auto csr = [&](DType it, DType vt, std::uint64_t M, std::uint64_t K) {
    std::mt19937_64 rng(seed++);
    std::vector<std::uint64_t> ptr{0}, cols;
    for (std::uint64_t r = 0; r < M; ++r) {
      for (std::uint64_t k = 0; k < K; ++k)
        if (rng() % 3 == 0 && r % 5 != 2) cols.push_back(k);
      ptr.push_back(cols.size());
    }
    ops::HostTensor ip(it, {M + 1}), ix(it, {cols.size()});
    for (std::uint64_t i = 0; i <= M; ++i) ip.store_int(i, ptr[i]);
    for (std::uint64_t i = 0; i < cols.size(); ++i) ix.store_int(i, cols[i]);
    return std::vector<ops::HostTensor>{ip, ix, R(vt, {cols.size()})};
  };
  for (DType it : {DType::i32, DType::i64})
    for (DType vt : {DType::f32, DType::bf16, DType::f64}) {
      std::string n = std::string(dtype_name(it)) + "/" + std::string(dtype_name(vt));
      auto a = csr(it, vt, 23, 31);
      cs.push_back({"csr_to_dense", a, attrs({{"n_cols", std::int64_t{31}}}), "csr_to_dense " + n});
      auto mm = a;
      mm.push_back(R(vt, {31, 9}));
      cs.push_back({"csr_matmul", mm, {}, "csr_matmul " + n});
      auto mv = a;
      mv.push_back(R(vt, {31}));
      cs.push_back({"csr_matvec", mv, {}, "csr_matvec " + n});
    }
  {
    auto a = csr(DType::i64, DType::f32, 6, 8);
    a[1].store_int(0, 8);  // a column outside [0, 8): both backends must refuse
    if (a[1].numel() > 0) cs.push_back({"csr_to_dense", a, attrs({{"n_cols", std::int64_t{8}}}), "csr_to_dense bad column (refused)"});
  }
  // dequantize from raw random blocks: every scale bit pattern (NaN/inf/subnormal f16 too).
  for (DType qt : {DType::q8_0, DType::q4_0})
    for (DType to : {DType::f32, DType::f16, DType::bf16}) {
      ops::HostTensor q(qt, {7, 96});
      std::mt19937_64 rng(seed++);
      for (auto& b : q.bytes()) b = static_cast<std::uint8_t>(rng());
      cs.push_back({"dequantize", {q}, attrs({{"to", to}}), "dequantize " + std::string(dtype_name(qt)) + " to " + std::string(dtype_name(to))});
    }
  add_nn_cases(cs, seed);
  add_conv_cases(cs, seed);
  return cs;
}

}  // namespace rung::cuda_test
