// GPU suite cases for conv, conv_transpose, max_pool and avg_pool: 1-D and 2-D, groups
// (depthwise too), strides, dilations, asymmetric pads, output_padding, ceil_mode,
// count_include_pad, every float dtype, special values (NaN, ±inf, ±0 ties for max_pool),
// an empty batch, more outputs than one grid of threads covers, avg_pool windows past one
// tree chunk (4096 taps: the block path), and shapes the reference refuses.
#include "cuda_cases.h"

namespace rung::cuda_test {

namespace {

using Ext = ops::Extents;
using V = std::vector<std::int64_t>;

AttrMap attrs(std::initializer_list<std::pair<const std::string, AttrValue>> l) { return AttrMap(l); }

}  // namespace

void add_conv_cases(std::vector<Case>& cs, std::uint64_t& seed) {
  auto R = [&](DType dt, Ext s, bool sp = false) { return random_tensor(dt, std::move(s), seed++, sp); };

  for (DType dt : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    std::string n(dtype_name(dt));
    // conv: 2 groups, bias, strides, dilation, asymmetric pads (taps in the padding).
    cs.push_back({"conv", {R(dt, {2, 6, 9, 11}), R(dt, {4, 3, 3, 2}), R(dt, {4})},
                  attrs({{"groups", std::int64_t{2}}, {"strides", V{2, 1}}, {"pads", V{1, 0, 2, 1}}, {"dilations", V{1, 2}}}),
                  "conv 2-D groups 2 strided dilated padded + bias " + n});
    cs.push_back({"conv", {R(dt, {3, 4, 17}), R(dt, {5, 4, 4})}, attrs({{"strides", V{3}}, {"pads", V{2, 1}}}),
                  "conv 1-D strided padded, no bias " + n});
    // conv_transpose: 2 groups (M = 6), strides, output_padding, dilation, pads.
    cs.push_back({"conv_transpose", {R(dt, {2, 4, 5, 6}), R(dt, {4, 3, 3, 3}), R(dt, {6})},
                  attrs({{"groups", std::int64_t{2}}, {"strides", V{2, 3}}, {"pads", V{1, 0, 0, 2}},
                         {"output_padding", V{1, 0}}, {"dilations", V{1, 2}}}),
                  "conv_transpose 2-D groups 2 strided dilated padded + bias " + n});
    cs.push_back({"conv_transpose", {R(dt, {2, 3, 7}), R(dt, {3, 2, 4})}, attrs({{"strides", V{2}}, {"output_padding", V{1}}}),
                  "conv_transpose 1-D strided, no bias " + n});
    // Pools with special values: NaN wins max_pool, ±inf, ±0, subnormals.
    cs.push_back({"max_pool", {R(dt, {2, 3, 13, 11}, true)},
                  attrs({{"kernel_shape", V{3, 2}}, {"strides", V{2, 2}}, {"pads", V{1, 1, 0, 1}}, {"dilations", V{2, 1}},
                         {"ceil_mode", true}}),
                  "max_pool 2-D ceil_mode padded dilated, specials " + n});
    cs.push_back({"max_pool", {R(dt, {2, 5, 20}, true)}, attrs({{"kernel_shape", V{4}}, {"strides", V{3}}, {"pads", V{2, 2}}}),
                  "max_pool 1-D padded, specials " + n});
    for (bool include_pad : {false, true})
      cs.push_back({"avg_pool", {R(dt, {2, 3, 12, 10})},
                    attrs({{"kernel_shape", V{3, 3}}, {"strides", V{2, 3}}, {"pads", V{1, 2, 0, 1}}, {"dilations", V{1, 2}},
                           {"ceil_mode", true}, {"count_include_pad", include_pad}}),
                    std::string("avg_pool 2-D ceil_mode padded dilated") + (include_pad ? " count_include_pad " : " ") + n});
    cs.push_back({"avg_pool", {R(dt, {2, 4, 15}, true)}, attrs({{"kernel_shape", V{5}}, {"pads", V{2, 1}}}),
                  "avg_pool 1-D padded, specials " + n});
  }

  // Specials through conv's chain (a padding tap meeting an infinite weight gives NaN).
  cs.push_back({"conv", {R(DType::f32, {2, 3, 6, 7}, true), R(DType::f32, {2, 3, 2, 2}, true), R(DType::f32, {2}, true)},
                attrs({{"pads", V{1, 1, 1, 1}}}), "conv 2-D padded, specials f32"});
  cs.push_back({"conv_transpose", {R(DType::f32, {1, 2, 4, 5}, true), R(DType::f32, {2, 2, 3, 2}, true)},
                attrs({{"strides", V{2, 2}}, {"pads", V{1, 0, 1, 1}}}), "conv_transpose 2-D strided, specials f32"});
  // Depthwise (groups = C), a larger layer, a batch of 0, more outputs than one grid covers.
  cs.push_back({"conv", {R(DType::f32, {2, 8, 7, 7}), R(DType::f32, {8, 1, 3, 3}), R(DType::f32, {8})},
                attrs({{"groups", std::int64_t{8}}, {"pads", V{1, 1, 1, 1}}}), "conv depthwise 3x3"});
  cs.push_back({"conv", {R(DType::f32, {2, 16, 32, 32}), R(DType::f32, {32, 16, 3, 3}), R(DType::f32, {32})},
                attrs({{"pads", V{1, 1, 1, 1}}}), "conv 16->32 channels 32x32 3x3"});
  cs.push_back({"conv", {R(DType::f32, {0, 3, 5, 5}), R(DType::f32, {2, 3, 3, 3})}, {}, "conv batch of 0"});
  cs.push_back({"conv", {R(DType::f32, {1, 1, 800, 800}), R(DType::f32, {1, 1, 1, 1})}, {}, "conv 640000 outputs (grid-stride)"});
  cs.push_back({"conv_transpose", {R(DType::f32, {2, 8, 16, 16}), R(DType::f32, {8, 4, 4, 4})},
                attrs({{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}}), "conv_transpose 8->4 channels 16x16 -> 32x32"});
  cs.push_back({"max_pool", {R(DType::f32, {1, 1, 900, 900}, true)}, attrs({{"kernel_shape", V{1, 1}}}),
                "max_pool 810000 outputs (grid-stride)"});
  cs.push_back({"avg_pool", {R(DType::f32, {1, 1, 900, 900})}, attrs({{"kernel_shape", V{2, 1}}}),
                "avg_pool 809100 outputs (warps, grid-stride)"});
  // max_pool ties: +0 beats -0 wherever it comes in the scan; equal values keep the first.
  {
    ops::HostTensor x(DType::f32, {1, 2, 6, 6});
    for (std::uint64_t i = 0; i < x.numel(); ++i) x.store_f32(i, i % 3 == 0 ? -0.0f : (i % 3 == 1 ? 0.0f : -1.0f));
    cs.push_back({"max_pool", {x}, attrs({{"kernel_shape", V{2, 3}}, {"strides", V{1, 1}}}), "max_pool ±0 and equal-value ties"});
  }
  // avg_pool windows past one tree chunk: 65x65 = 4225 taps (the block path), with padding.
  for (bool include_pad : {false, true})
    cs.push_back({"avg_pool", {R(DType::f32, {1, 2, 70, 70})},
                  attrs({{"kernel_shape", V{65, 65}}, {"pads", V{1, 0, 2, 1}}, {"count_include_pad", include_pad}}),
                  std::string("avg_pool 4225-tap window (block)") + (include_pad ? " count_include_pad" : "")});
  cs.push_back({"avg_pool", {R(DType::f64, {1, 1, 64, 70})}, attrs({{"kernel_shape", V{64, 65}}}),
                "avg_pool 4160-tap window (block) f64"});
  // Refused by the shape rules: groups that do not divide, an all-padding pool window.
  cs.push_back({"conv", {R(DType::f32, {1, 6, 5, 5}), R(DType::f32, {4, 3, 3, 3})}, attrs({{"groups", std::int64_t{4}}}),
                "conv groups not dividing the channels (refused)"});
  cs.push_back({"max_pool", {R(DType::f32, {1, 1, 4, 4})}, attrs({{"kernel_shape", V{2, 2}}, {"pads", V{0, 0, 3, 0}}}),
                "max_pool window entirely in the padding (refused)"});
}

}  // namespace rung::cuda_test
