// Resize (opsets 10, 11-17) and Upsample (7-9) onto the registry's `resize`. Scales, sizes and
// roi are shape-like operands folded at import (I0012 when they are computed at run time);
// output extents follow ONNX 1.12's reference: floor(extent * scale) in binary64, or sizes.
// Upsample and Resize-10 have no coordinate attribute: they are asymmetric, nearest by floor.
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Reals = std::vector<double>;

struct ResizeArgs {
  std::string mode = "nearest";
  std::string coordinate_mode = "asymmetric";
  std::string nearest_mode = "floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  std::optional<Reals> scales;
  std::optional<Ints> sizes;
  Reals roi;
};

// An optional operand: absent, an empty name or a tensor with no elements (Resize-11 passes
// an empty scales beside sizes).
bool given(NodeCtx& c, std::size_t i) {
  if (!c.has(i)) return false;
  auto n = c.in(i).type.element_count();
  return !(n && *n == 0);
}

bool emit_resize(NodeCtx& c, const ResizeArgs& r) {
  const Value& x = c.in(0);
  const std::size_t rank = x.rank();
  const bool is_float = dtype_info(x.type.dtype).is_float;
  if (r.mode != "nearest" && r.mode != "linear" && r.mode != "cubic") return c.fail("I0005", "mode \"" + r.mode + "\" is not supported");
  if (r.mode != "nearest" && !is_float)
    return c.fail("I0005", "mode " + r.mode + " interpolates; X is " + std::string(dtype_name(x.type.dtype)) + " (only nearest copies integers)");
  if (r.coordinate_mode == "tf_crop_and_resize" && !is_float)
    return c.fail("I0005", "coordinate_transformation_mode tf_crop_and_resize extrapolates; X must be a float tensor");
  if (r.scales.has_value() == r.sizes.has_value()) return c.fail("I0005", "exactly one of scales and sizes must be given");
  Ints out(rank, -1);
  Reals scales;
  if (r.scales) {
    if (r.scales->size() != rank)
      return c.fail("I0005", "scales has " + std::to_string(r.scales->size()) + " values for rank " + std::to_string(rank));
    for (std::size_t d = 0; d < rank; ++d) {
      double s = (*r.scales)[d];
      if (!(std::isfinite(s) && s > 0)) return c.fail("I0005", "scale " + std::to_string(s) + " of axis " + std::to_string(d) + " is not > 0");
      const Dim& dim = x.type.shape[d];
      if (!dim.is_static()) {
        if (s != 1.0) return c.fail("I0012", "axis " + std::to_string(d) + " (" + dim.to_string() + ") is symbolic and scaled by " + std::to_string(s),
                                    "bind the dim at import (--dim " + dim.to_string() + "=N)");
        continue;
      }
      double e = std::floor(s * static_cast<double>(dim.extent()));  // the reference's astype(int) of a positive product
      if (e > 1099511627776.0) return c.fail("I0005", "axis " + std::to_string(d) + " would have " + std::to_string(e) + " elements");
      out[d] = static_cast<std::int64_t>(e);
    }
    scales = *r.scales;
  } else {
    if (r.sizes->size() != rank)
      return c.fail("I0005", "sizes has " + std::to_string(r.sizes->size()) + " values for rank " + std::to_string(rank));
    for (std::size_t d = 0; d < rank; ++d) {
      std::int64_t s = (*r.sizes)[d];
      if (s < 0) return c.fail("I0005", "size " + std::to_string(s) + " of axis " + std::to_string(d) + " is negative");
      const Dim& dim = x.type.shape[d];
      if (!dim.is_static())
        return c.fail("I0012", "axis " + std::to_string(d) + " (" + dim.to_string() + ") is symbolic; its scale sizes/extent is unknown",
                      "bind the dim at import (--dim " + dim.to_string() + "=N)");
      if (static_cast<std::uint64_t>(s) == dim.extent() && r.coordinate_mode != "tf_crop_and_resize") continue;  // kept
      if (dim.extent() == 0) return c.fail("I0005", "axis " + std::to_string(d) + " is empty and cannot be resampled to " + std::to_string(s));
      out[d] = s;
    }
  }
  if (r.coordinate_mode == "tf_crop_and_resize" && r.roi.size() != 2 * rank)
    return c.fail("I0005", "roi has " + std::to_string(r.roi.size()) + " values; tf_crop_and_resize needs 2 per axis (" +
                               std::to_string(2 * rank) + ")");
  AttrMap a = {{"sizes", AttrValue(out)},
               {"mode", AttrValue(r.mode)},
               {"coordinate_mode", AttrValue(r.coordinate_mode)},
               {"nearest_mode", AttrValue(r.nearest_mode)},
               {"cubic_coeff_a", AttrValue(r.cubic_a)},
               {"exclude_outside", AttrValue(r.exclude_outside)},
               {"extrapolation_value", AttrValue(r.extrapolation)}};
  if (!scales.empty()) a.emplace("scales", AttrValue(scales));
  if (r.coordinate_mode == "tf_crop_and_resize") a.emplace("roi", AttrValue(r.roi));
  return out0(c, c.op("resize", {x}, std::move(a)));
}

bool check_choice(NodeCtx& c, const std::string& what, const std::string& v, std::initializer_list<const char*> ok) {
  for (const char* o : ok)
    if (v == o) return true;
  return c.fail("I0005", what + " \"" + v + "\" is not supported");
}

// Upsample-7 (scales attribute) and -9 (scales input); Resize-10 (scales input).
bool upsample_like(NodeCtx& c, bool scales_input) {
  if (!need(c, scales_input ? 2 : 1)) return false;
  ResizeArgs r;
  r.mode = c.attr_string("mode", "nearest");
  std::optional<std::vector<float>> fs;
  if (!scales_input) fs = c.attr_floats("scales");
  if (c.attr_error()) return false;
  if (scales_input) {
    auto s = c.known_reals(c.in(1), "scales (input 1)");
    if (!s) return false;
    r.scales = *s;
  } else {
    if (!fs) return c.fail("I0005", "the attribute scales is required");
    r.scales = Reals(fs->begin(), fs->end());
  }
  return emit_resize(c, r);
}

bool upsample7(NodeCtx& c) { return upsample_like(c, false); }
bool upsample9(NodeCtx& c) { return upsample_like(c, true); }

// Resize-11 and later: X, roi, scales, sizes (roi and scales optional from 13).
bool resize11(NodeCtx& c) {
  if (!need(c, 1)) return false;
  ResizeArgs r;
  r.mode = c.attr_string("mode", "nearest");
  r.coordinate_mode = c.attr_string("coordinate_transformation_mode", "half_pixel");
  r.nearest_mode = c.attr_string("nearest_mode", "round_prefer_floor");
  r.cubic_a = c.attr_float("cubic_coeff_a", -0.75f);
  r.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  r.extrapolation = c.attr_float("extrapolation_value", 0.0f);
  if (c.attr_error()) return false;
  if (!check_choice(c, "coordinate_transformation_mode", r.coordinate_mode,
                    {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"}) ||
      !check_choice(c, "nearest_mode", r.nearest_mode, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}))
    return false;
  if (r.coordinate_mode == "tf_crop_and_resize" && given(c, 1)) {
    auto roi = c.known_reals(c.in(1), "roi (input 1)");
    if (!roi) return false;
    r.roi = *roi;
  }
  if (given(c, 2)) {
    auto s = c.known_reals(c.in(2), "scales (input 2)");
    if (!s) return false;
    r.scales = *s;
  }
  if (given(c, 3)) {
    auto s = c.known_ints(c.in(3), "sizes (input 3)");
    if (!s) return false;
    r.sizes = *s;
  }
  return emit_resize(c, r);
}

bool resize10(NodeCtx& c) { return upsample_like(c, true); }

}  // namespace

void add_resize_handlers(std::vector<Handler>& h) {
  h.push_back({"Upsample", 7, 8, upsample7, "resize (asymmetric, nearest by floor)"});
  h.push_back({"Upsample", 9, 9, upsample9, "resize (scales as input)"});
  h.push_back({"Resize", 10, 10, resize10, "resize (asymmetric, nearest by floor)"});
  h.push_back({"Resize", 11, kMaxOpset, resize11, "resize (roi, scales, sizes as inputs)"});
}

}  // namespace rung::onnx_import
