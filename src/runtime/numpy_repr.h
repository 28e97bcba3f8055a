// A tensor printed as NumPy's `repr` prints the same array under its default print options
// (`array([[1. , 2.5],\n       [3. , 4. ]], dtype=float32)`): shortest round-trip digits of
// the element's own dtype, at most 8 after the point, scientific notation when NumPy
// chooses it, columns padded alike, lines wrapped at 75, more than 1000 elements summarised
// with `...` (3 at each edge). `rung run --print` shows outputs this way so that a value can
// be compared with NumPy's by eye or by string. tests/cli/print_cli_test.sh checks it
// against NumPy itself.
#pragma once

#include <optional>
#include <string>

#include "ops/host_tensor.h"

namespace rung::runtime {

// nullopt for the quantized storage types (q8_0, q4_0), which hold no plain elements.
std::optional<std::string> numpy_repr(const ops::HostTensor& t);

}  // namespace rung::runtime
