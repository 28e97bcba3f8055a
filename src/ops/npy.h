// NumPy .npy files (format versions 1-3) as HostTensors: little-endian or byte-order-free
// element types, C order. bf16 and the block-quantized formats have no numpy dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/host_tensor.h"

namespace rung::ops {

// Untrusted input: every malformed header is an error message, never a crash.
std::optional<HostTensor> read_npy(std::span<const std::uint8_t> bytes, std::string& error);
// nullopt (with `error`) for dtypes numpy cannot describe.
std::optional<std::vector<std::uint8_t>> write_npy(const HostTensor& t, std::string& error);

}  // namespace rung::ops
