// cast (id 250): conversion between every pair of plain element types, by the rules in
// numerics/convert.h. Quantized formats have their own quantize/dequantize ops.
#include "ops/numerics/convert.h"
#include "ops/float_precision.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

int int_bits(DType t) { return static_cast<int>(dtype_info(t).block_bytes) * 8; }

void cast_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  const DTypeInfo& from = dtype_info(x.dtype());
  const DTypeInfo& to = dtype_info(y.dtype());
  bool from_bool = x.dtype() == DType::boolean;
  bool to_bool = y.dtype() == DType::boolean;
  for (std::uint64_t i = 0; i < x.numel(); ++i) {
    if (from.is_float) {
      double v = x.load_f64(i);
      if (to_bool) y.store_bool(i, v != 0.0 || num::is_nan(v));
      else if (to.is_float) y.store_f64(i, v);
      else y.store_int(i, num::double_to_int_saturating(v, int_bits(y.dtype()), to.is_signed));
      continue;
    }
    // Integer or bool source: its value as sign + magnitude, and as two's complement bits.
    bool negative = false;
    std::uint64_t bits;
    if (from_bool || !from.is_signed) {
      bits = x.load_u64(i);
    } else {
      std::int64_t s = x.load_i64(i);
      negative = s < 0;
      bits = static_cast<std::uint64_t>(s);
    }
    std::uint64_t mag = negative ? ~bits + 1 : bits;
    if (to_bool) y.store_bool(i, bits != 0);
    else if (to.is_float) y.store_f64(i, num::int_to_double_rounded(negative, mag, precision_of(y.dtype())));
    else y.store_int(i, bits);  // wraps to the target width
  }
}

ShapeResult cast_shape(const ShapeArgs& a) {
  DType to = a.attrs.dtype("to");
  if (!kPlain.contains(to))
    return ShapeResult::fail("cannot cast to " + std::string(dtype_name(to)) +
                             ": block-quantized formats are produced by `quantize`");
  return ShapeResult::ok({a.inputs[0].shape});
}

}  // namespace

void register_family_cast(OpRegistry& r) {
  r.add(OpDef("cast", 250)
            .doc("convert to dtype `to`: floats round to nearest even, float->int truncates and saturates (NaN -> 0), int->int wraps")
            .type_var("T", kPlain).input("x", "T").output("y", "attr:to")
            .attr("to", AttrKind::dtype, "the result's element type")
            .shape(cast_shape).kernel(cast_kernel));
}

}  // namespace rung::ops
