// GPU suite cases for rope, attention, cross_entropy, scatter_add, quantize, linear_q,
// csr_from_dense and csr_from_coo: awkward shapes (rows past one tree chunk, broadcast
// batches, masks), special values, and inputs the reference refuses (the GPU must refuse too).
#include <cmath>
#include <random>

#include "cuda_cases.h"

namespace rung::cuda_test {

namespace {

using Ext = ops::Extents;
using V = std::vector<std::int64_t>;

AttrMap attrs(std::initializer_list<std::pair<const std::string, AttrValue>> l) { return AttrMap(l); }

ops::HostTensor ints(DType dt, Ext s, std::uint64_t bound, std::uint64_t seed) {
  ops::HostTensor t(dt, std::move(s));
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_int(i, rng() % bound);
  return t;
}

}  // namespace

void add_nn_cases(std::vector<Case>& cs, std::uint64_t& seed) {
  auto R = [&](DType dt, Ext s, bool sp = true) { return random_tensor(dt, std::move(s), seed++, sp); };
  auto I = [&](DType dt, Ext s, std::uint64_t bound) { return ints(dt, std::move(s), bound, seed++); };

  // rope: both layouts, default and given positions (signed and unsigned), f16/bf16.
  for (DType dt : {DType::f32, DType::f16, DType::bf16})
    for (const char* layout : {"half", "interleaved"}) {
      std::string n = std::string("rope ") + layout + " " + std::string(dtype_name(dt));
      cs.push_back({"rope", {R(dt, {2, 3, 17, 24})}, attrs({{"layout", std::string(layout)}}), n});
      cs.push_back({"rope", {R(dt, {5, 40}), I(DType::i64, {5}, 70000)}, attrs({{"layout", std::string(layout)}, {"base", 500000.0}}),
                    n + " positions"});
    }
  cs.push_back({"rope", {R(DType::f32, {3, 8, 16}), I(DType::u32, {8}, 1000)}, {}, "rope u32 positions"});

  // attention: causal and not, Sq != Sk, broadcast batches, bool and additive masks, a row
  // longer than one chunk (Sk > 4096), an explicit scale, rows with no allowed key.
  for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
    std::string n(dtype_name(dt));
    cs.push_back({"attention", {R(dt, {2, 3, 19, 16}, false), R(dt, {2, 3, 19, 16}, false), R(dt, {2, 3, 19, 12}, false)}, {},
                  "attention causal " + n});
    cs.push_back({"attention", {R(dt, {2, 1, 7, 16}), R(dt, {3, 11, 16}), R(dt, {1, 3, 11, 8})}, attrs({{"causal", false}}),
                  "attention broadcast batch, specials " + n});
  }
  cs.push_back({"attention", {R(DType::f32, {2, 13, 8}, false), R(DType::f32, {2, 5, 8}, false), R(DType::f32, {2, 5, 8}, false)}, {},
                "attention causal Sq > Sk (rows without keys)"});
  cs.push_back({"attention", {R(DType::f32, {2, 9, 8}, false), R(DType::f32, {2, 9, 8}, false), R(DType::f32, {2, 9, 8}, false),
                              R(DType::boolean, {9, 9})},
                attrs({{"causal", false}, {"scale", 0.3}}), "attention bool mask"});
  cs.push_back({"attention", {R(DType::f32, {2, 9, 8}, false), R(DType::f32, {2, 9, 8}, false), R(DType::f32, {2, 9, 8}, false),
                              R(DType::f16, {2, 1, 9})},
                {}, "attention additive f16 mask"});
  cs.push_back({"attention", {R(DType::f32, {3, 4}, false), R(DType::f32, {5000, 4}, false), R(DType::f32, {5000, 2}, false)},
                attrs({{"causal", false}}), "attention Sk 5000 (block rows)"});
  // The fused kernel's tiles: many query and key tiles (32/16/8-query tiles by row length),
  // causal tiles that stop early, head dims past one 64-column chunk and not a multiple of
  // 4, masks across tiles, rows without keys, and a row too long for shared memory (unfused).
  cs.push_back({"attention", {R(DType::f32, {2, 3, 300, 64}, false), R(DType::f32, {2, 3, 300, 64}, false),
                              R(DType::f32, {2, 3, 300, 64}, false)},
                {}, "attention causal 300x300 D 64 (fused, 32-query tiles)"});
  cs.push_back({"attention", {R(DType::bf16, {2, 77, 100}, false), R(DType::bf16, {2, 129, 100}, false),
                              R(DType::bf16, {2, 129, 70}, false)},
                {}, "attention causal Sq 77 Sk 129 D 100 Dv 70 bf16"});
  for (std::uint64_t n : {1000, 1500})  // 16- and 8-query tiles
    cs.push_back({"attention", {R(DType::f16, {1, 2, n, 8}, false), R(DType::f16, {1, 2, n, 8}, false), R(DType::f16, {1, 2, n, 8}, false)},
                  {}, "attention causal " + std::to_string(n) + " f16"});
  cs.push_back({"attention", {R(DType::f32, {3, 70, 33}, false), R(DType::f32, {3, 140, 33}, false), R(DType::f32, {3, 140, 5}, false),
                              R(DType::boolean, {3, 70, 140})},
                attrs({{"causal", true}}), "attention causal + bool mask across tiles"});
  {
    auto m = R(DType::f32, {40, 90}, false);
    for (std::uint64_t j = 0; j < 90; ++j) m.store_f32(7 * 90 + j, -INFINITY);  // row 7: every score -inf (NaN row)
    for (std::uint64_t j = 0; j < 90; j += 3) m.store_f32(11 * 90 + j, INFINITY);
    cs.push_back({"attention", {R(DType::f32, {2, 40, 16}, false), R(DType::f32, {2, 90, 16}, false), R(DType::f32, {2, 90, 16}, false), m},
                  attrs({{"causal", false}}), "attention additive mask with -inf and +inf rows"});
  }
  cs.push_back({"attention", {R(DType::f32, {2, 200, 16}, false), R(DType::f32, {2, 70, 16}, false), R(DType::f32, {2, 70, 16}, false)},
                {}, "attention causal Sq 200 > Sk 70 (tiles without keys)"});
  cs.push_back({"attention", {R(DType::f32, {2, 2, 24}), R(DType::f32, {2, 300, 24}), R(DType::f32, {2, 300, 24})},
                attrs({{"causal", false}}), "attention specials across tiles"});
  cs.push_back({"attention", {R(DType::f32, {2, 4}, false), R(DType::f32, {7000, 4}, false), R(DType::f32, {7000, 3}, false)},
                attrs({{"causal", false}}), "attention Sk 7000 (unfused: too long for shared memory)"});

  // cross_entropy: every reduction, ignore_index, multi-chunk rows, special logits, a bad target.
  for (const char* red : {"mean", "sum", "none"}) {
    cs.push_back({"cross_entropy", {R(DType::f32, {37, 10}), I(DType::i64, {37}, 10)}, attrs({{"reduction", std::string(red)}}),
                  std::string("cross_entropy ") + red});
    cs.push_back({"cross_entropy", {R(DType::bf16, {4, 6, 33}, false), I(DType::i32, {4, 6}, 33)},
                  attrs({{"reduction", std::string(red)}, {"ignore_index", std::int64_t{3}}}),
                  std::string("cross_entropy bf16 ignore_index ") + red});
  }
  cs.push_back({"cross_entropy", {R(DType::f32, {3, 5000}, false), I(DType::u8, {3}, 200)}, {}, "cross_entropy C 5000 (block rows)"});
  {
    auto t = I(DType::i64, {8}, 7);
    t.store_int(5, static_cast<std::uint64_t>(-1));
    cs.push_back({"cross_entropy", {R(DType::f32, {8, 7}), t}, attrs({{"ignore_index", std::int64_t{-1}}}), "cross_entropy ignore -1"});
    auto t2 = t;
    t2.store_int(6, 7);
    cs.push_back({"cross_entropy", {R(DType::f32, {8, 7}), t2}, attrs({{"ignore_index", std::int64_t{-1}}}),
                  "cross_entropy bad target (refused)"});
    auto all = I(DType::i64, {4}, 1);
    cs.push_back({"cross_entropy", {R(DType::f32, {4, 3}), all}, attrs({{"ignore_index", std::int64_t{0}}}),
                  "cross_entropy all ignored (mean NaN)"});
  }

  // scatter_add: duplicate indices, floats with specials, integers wrapping, an inner axis,
  // many updates on one target (block path), a bad index.
  for (DType dt : {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::u8, DType::i64})
    cs.push_back({"scatter_add", {R(dt, {6, 5}), I(DType::i64, {40}, 6), R(dt, {40, 5})}, {},
                  "scatter_add dup indices " + std::string(dtype_name(dt))});
  cs.push_back({"scatter_add", {R(DType::f32, {3, 7, 4}), I(DType::i32, {2, 9}, 7), R(DType::f32, {3, 2, 9, 4})},
                attrs({{"axis", std::int64_t{1}}}), "scatter_add axis 1, 2-D indices"});
  cs.push_back({"scatter_add", {R(DType::f32, {3, 2}), I(DType::u16, {6000}, 2), R(DType::f32, {6000, 2}, false)}, {},
                "scatter_add 3000 updates per target (block path)"});
  {
    auto bad = I(DType::i64, {9}, 6);
    bad.store_int(4, 6);
    cs.push_back({"scatter_add", {R(DType::f32, {6, 5}), bad, R(DType::f32, {9, 5})}, {}, "scatter_add bad index (refused)"});
  }

  // quantize: both formats, f16/bf16 input, all-zero blocks, a block with inf and one whose
  // scale overflows f16 (refused).
  for (DType to : {DType::q8_0, DType::q4_0})
    for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
      ops::HostTensor x = R(dt, {9, 96}, false);
      for (std::uint64_t i = 32; i < 64; ++i) x.store_f32(i, 0.0f);  // an all-zero block
      cs.push_back({"quantize", {x}, attrs({{"to", to}}), "quantize " + std::string(dtype_name(dt)) + " to " + std::string(dtype_name(to))});
    }
  {
    ops::HostTensor x = R(DType::f32, {4, 64}, false);
    x.store_f32(70, std::numeric_limits<float>::infinity());
    cs.push_back({"quantize", {x}, attrs({{"to", DType::q8_0}}), "quantize inf (refused)"});
    ops::HostTensor y = R(DType::f32, {4, 64}, false);
    y.store_f32(200, 1e12f);
    cs.push_back({"quantize", {y}, attrs({{"to", DType::q4_0}}), "quantize scale overflow (refused)"});
  }

  // linear_q: both arithmetics, both formats, bias, a NaN activation (int8: the row is NaN).
  for (DType qt : {DType::q8_0, DType::q4_0})
    for (const char* comp : {"int8", "float"}) {
      ops::HostTensor w(qt, {21, 96});
      std::mt19937_64 rng(seed++);
      for (auto& b : w.bytes()) b = static_cast<std::uint8_t>(rng());
      for (std::uint64_t blk = 0; blk < 21 * 3; ++blk) {  // finite, moderate f16 scales
        std::uint8_t* p = w.bytes().data() + blk * (qt == DType::q8_0 ? 34 : 18);
        p[0] = static_cast<std::uint8_t>(rng());
        p[1] = static_cast<std::uint8_t>(0x20 + rng() % 0x10);
      }
      ops::HostTensor x = R(DType::f32, {2, 5, 96}, false);
      x.store_f32(100, std::numeric_limits<float>::quiet_NaN());
      std::string n = std::string("linear_q ") + std::string(dtype_name(qt)) + " " + comp;
      cs.push_back({"linear_q", {x, w}, attrs({{"compute", std::string(comp)}}), n});
      cs.push_back({"linear_q", {R(DType::bf16, {3, 96}, false), w, R(DType::bf16, {21})}, attrs({{"compute", std::string(comp)}}),
                    n + " bf16 + bias"});
    }

  // csr_from_dense: ±0 dropped, NaN kept, empty rows, both index dtypes.
  for (DType it : {DType::i32, DType::i64})
    for (DType dt : {DType::f32, DType::f16, DType::f64}) {
      ops::HostTensor x = R(dt, {13, 70});
      for (std::uint64_t i = 0; i < x.numel(); ++i)
        if (i % 3 != 0 || (i / 70) % 4 == 1) x.store_f64(i, i % 2 ? -0.0 : 0.0);
      cs.push_back({"csr_from_dense", {x}, attrs({{"index_dtype", it}}),
                    "csr_from_dense " + std::string(dtype_name(it)) + "/" + std::string(dtype_name(dt))});
    }
  cs.push_back({"csr_from_dense", {ops::HostTensor(DType::f32, {4, 5})}, {}, "csr_from_dense all zero"});

  // csr_from_coo: unsorted entries with duplicates (summed), empty rows, a bad column.
  for (DType it : {DType::i32, DType::i64})
    for (DType dt : {DType::f32, DType::bf16, DType::f64}) {
      cs.push_back({"csr_from_coo", {I(it, {300}, 11), I(it, {300}, 9), R(dt, {300})}, attrs({{"n_rows", std::int64_t{14}}, {"n_cols", std::int64_t{9}}}),
                    "csr_from_coo dups " + std::string(dtype_name(it)) + "/" + std::string(dtype_name(dt))});
    }
  cs.push_back({"csr_from_coo", {I(DType::i64, {0}, 1), I(DType::i64, {0}, 1), R(DType::f32, {0})},
                attrs({{"n_rows", std::int64_t{3}}, {"n_cols", std::int64_t{4}}}), "csr_from_coo empty"});
  cs.push_back({"csr_from_coo", {I(DType::i64, {9000}, 2), I(DType::i64, {9000}, 2), R(DType::f32, {9000}, false)},
                attrs({{"n_rows", std::int64_t{2}}, {"n_cols", std::int64_t{2}}}), "csr_from_coo 2250 dups per entry"});
  {
    auto cols = I(DType::i32, {20}, 5);
    cols.store_int(13, 5);
    cs.push_back({"csr_from_coo", {I(DType::i32, {20}, 4), cols, R(DType::f32, {20})},
                  attrs({{"n_rows", std::int64_t{4}}, {"n_cols", std::int64_t{5}}}), "csr_from_coo bad column (refused)"});
  }
}

}  // namespace rung::cuda_test
