// Element values for conformance cases: ordinary numbers over a chosen range of binades,
// mixed with the values where kernels go wrong (±0, ±inf, NaN with and without payload,
// subnormals, the largest finite value, ±1), plus the structured fillers the op table
// asks for (indices within a bound, well-formed q8_0/q4_0 blocks).
#pragma once

#include <cstdint>
#include <vector>

#include "conformance/rng.h"
#include "ops/host_tensor.h"

namespace rung::conformance {

struct ValueStyle {
  std::uint32_t specials_per_mille = 0;  // share of elements drawn from the special values
  int exp_lo = -4, exp_hi = 4;           // binades of the ordinary values (2^exp_lo .. 2^exp_hi)
  bool finite_only = false;              // specials limited to finite ones (±0, subnormals, ±1)
  bool non_negative = false;             // ordinary values and specials >= 0 (NaN excluded)
};

// The special values of a float dtype as raw bit patterns (width of the dtype).
std::vector<std::uint64_t> float_special_bits(DType t, bool finite_only);

// Plain dtypes: floats per `style`, integers small with their extremes mixed in, bools random.
void fill_general(ops::HostTensor& t, Rng& rng, const ValueStyle& style);
// Integer tensor with every value in [0, bound) (bound > 0 unless t is empty).
void fill_indices(ops::HostTensor& t, Rng& rng, std::uint64_t bound);
// q8_0 / q4_0 tensor: each block a finite f16 scale (zero and subnormal scales included) and
// random codes.
void fill_qblocks(ops::HostTensor& t, Rng& rng);

}  // namespace rung::conformance
