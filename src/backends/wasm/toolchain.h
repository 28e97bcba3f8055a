// Compiles a generated module's C++ to wasm32 with clang-14 (no libc, no imports): the
// kernels and rung's numerics headers (embedded in rung, written to a temporary folder) and
// the fixed flags below (-mbulk-memory: memmove and memset are instructions, as there is no
// libc). No -mrelaxed-simd: relaxed SIMD's fma is fused or not at the host's
// choice, so its bits are not the cpu backend's.
//   T0001: the compiler cannot be run (missing, not executable) or is not clang 14.
//   T0005: it ran and failed (its output is attached).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace rung::wasm {

// Flags of every module build, in order (also recorded in the module's `rung` section).
const std::vector<std::string>& compile_flags();

struct CompiledModule {
  std::string wasm;      // the module's bytes
  std::string compiler;  // the compiler's identity: the first line of `--version`
};

// `compiler` is a program name looked up in PATH (clang++-14) or a path.
std::optional<CompiledModule> compile_module(const std::string& compiler, const std::string& cpp, DiagnosticSink& diags);

}  // namespace rung::wasm
