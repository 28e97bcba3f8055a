// The identity of a tensor value: what run records and `rung run` print for inputs and
// outputs. SHA3-256 over "rung/tensor\0", u8 dtype, u32 rank, u64 extents, then the bytes,
// with NaNs canonicalised first (results compare bit-equal except NaN payloads).
#pragma once

#include "base/hash.h"
#include "ops/host_tensor.h"

namespace rung {
Hash256 tensor_hash(const ops::HostTensor& t);
}  // namespace rung
