// The kernels a generated module calls (rung build --target wasm): the one header its C++
// includes. Each follows the reference's order of operations with rung's numerics headers.
#pragma once

#include "backends/wasm/kernels/layout.h"
#include "backends/wasm/kernels/map.h"
#include "backends/wasm/kernels/matmul.h"
#include "backends/wasm/kernels/reduce.h"
#include "ops/numerics/elementwise.h"
