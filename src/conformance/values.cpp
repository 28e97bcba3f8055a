#include "conformance/values.h"

#include <cmath>

namespace rung::conformance {
namespace {

struct FloatLayout {
  int exp_bits, man_bits;
};

FloatLayout layout_of(DType t) {
  switch (t) {
    case DType::f64: return {11, 52};
    case DType::f16: return {5, 10};
    case DType::bf16: return {8, 7};
    default: return {8, 23};
  }
}

void store_bits(ops::HostTensor& t, std::uint64_t i, std::uint64_t bits) {
  switch (dtype_info(t.dtype()).block_bytes) {
    case 8: t.set_raw<std::uint64_t>(i, bits); break;
    case 4: t.set_raw<std::uint32_t>(i, static_cast<std::uint32_t>(bits)); break;
    default: t.set_raw<std::uint16_t>(i, static_cast<std::uint16_t>(bits)); break;
  }
}

// An ordinary value: ±(1 + m) * 2^e, built exactly in binary64 and rounded once to t.
double ordinary(Rng& rng, const ValueStyle& s) {
  double m = 1.0 + static_cast<double>(rng.next() >> 11) * 0x1p-53;
  int e = static_cast<int>(rng.between(s.exp_lo, s.exp_hi));
  double v = std::ldexp(m, e);
  return (!s.non_negative && rng.chance(1, 2)) ? -v : v;
}

}  // namespace

std::vector<std::uint64_t> float_special_bits(DType t, bool finite_only) {
  auto [E, M] = layout_of(t);
  const std::uint64_t sign = std::uint64_t{1} << (E + M);
  const std::uint64_t exp_all = ((std::uint64_t{1} << E) - 1) << M;
  const std::uint64_t man_all = (std::uint64_t{1} << M) - 1;
  const std::uint64_t one = ((std::uint64_t{1} << (E - 1)) - 1) << M;
  std::vector<std::uint64_t> v = {
      0,                                          // +0
      sign,                                       // -0
      1,                                          // smallest subnormal
      man_all | sign,                             // -(largest subnormal)
      std::uint64_t{1} << M,                      // smallest normal
      one,                                        // 1
      one | sign,                                 // -1
  };
  if (!finite_only) {
    v.push_back(exp_all - (std::uint64_t{1} << M) + man_all);         // largest finite (huge)
    v.push_back((exp_all - (std::uint64_t{1} << M) + man_all) | sign);  // its negative
    v.push_back(exp_all);                                             // +inf
    v.push_back(exp_all | sign);                                      // -inf
    v.push_back(exp_all | (std::uint64_t{1} << (M - 1)));             // canonical quiet NaN
    v.push_back(exp_all | (std::uint64_t{1} << (M - 1)) | 1 | sign);  // NaN with sign and payload
  }
  return v;
}

void fill_general(ops::HostTensor& t, Rng& rng, const ValueStyle& style) {
  const DTypeInfo& info = dtype_info(t.dtype());
  const std::uint64_t n = t.numel();
  if (info.is_float) {
    std::vector<std::uint64_t> specials = float_special_bits(t.dtype(), style.finite_only);
    if (style.non_negative) {
      std::vector<std::uint64_t> kept;
      auto [E, M] = layout_of(t.dtype());
      const std::uint64_t sign = std::uint64_t{1} << (E + M);
      const std::uint64_t exp_all = ((std::uint64_t{1} << E) - 1) << M;
      for (auto b : specials)
        if (!(b & sign) && !((b & exp_all) == exp_all && (b & ((std::uint64_t{1} << M) - 1)))) kept.push_back(b);
      specials = kept;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      if (rng.below(1000) < style.specials_per_mille) store_bits(t, i, rng.pick(specials));
      else t.store_f64(i, ordinary(rng, style));
    }
    return;
  }
  if (t.dtype() == DType::boolean) {
    for (std::uint64_t i = 0; i < n; ++i) t.store_bool(i, rng.chance(1, 2));
    return;
  }
  const int bits = static_cast<int>(info.block_bytes) * 8;
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t smin = std::uint64_t{1} << (bits - 1);  // INT_MIN's bits
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t v;
    if (rng.below(1000) < style.specials_per_mille) {
      switch (rng.below(4)) {
        case 0: v = 0; break;
        case 1: v = mask; break;                                  // -1 / UINT_MAX
        case 2: v = info.is_signed ? smin : mask; break;          // INT_MIN / UINT_MAX
        default: v = info.is_signed ? smin - 1 : mask - 1; break;  // INT_MAX / UINT_MAX - 1
      }
    } else if (info.is_signed && !style.non_negative) {
      v = static_cast<std::uint64_t>(rng.between(-9, 9));
    } else {
      v = rng.below(19);
    }
    t.store_int(i, v & mask);
  }
}

void fill_indices(ops::HostTensor& t, Rng& rng, std::uint64_t bound) {
  for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_int(i, bound == 0 ? 0 : rng.below(bound));
}

void fill_qblocks(ops::HostTensor& t, Rng& rng) {
  const DTypeInfo& info = dtype_info(t.dtype());
  const std::uint64_t blocks = t.numel() / info.block_elems;
  // f16 scales: 0, a subnormal, and ordinary ones around 2^-12 .. 2^2.
  static const std::uint16_t kScales[] = {0x0000, 0x0001, 0x0400, 0x1400, 0x2000, 0x2c00, 0x3000, 0x3c00, 0x4400};
  auto bytes = t.bytes();
  for (std::uint64_t b = 0; b < blocks; ++b) {
    std::uint8_t* blk = bytes.data() + b * info.block_bytes;
    std::uint16_t scale = rng.chance(1, 4) ? kScales[rng.below(std::size(kScales))]
                                           : static_cast<std::uint16_t>(0x1000 + rng.below(0x3400));
    blk[0] = static_cast<std::uint8_t>(scale);
    blk[1] = static_cast<std::uint8_t>(scale >> 8);
    for (std::uint32_t j = 2; j < info.block_bytes; ++j) blk[j] = static_cast<std::uint8_t>(rng.next());
  }
}

}  // namespace rung::conformance
