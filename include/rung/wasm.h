// `rung build --target wasm`: one entry of a program as a standalone WebAssembly module with
// no rung engine inside (docs/wasm-build.md). The entry's ExecPlan (every symbolic dim bound)
// is lowered to C++ calling rung's exact kernels and compiled with clang-14, which this needs
// (T0001 without it). Beside prog.wasm go prog.mjs, an ES-module loader taking and returning
// typed arrays, and prog.d.ts. Outputs have the cpu backend's bits (tier debug).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/module.h"

namespace rung {

struct WasmBuildOptions {
  std::string output;  // the .wasm file; empty: the source's path with .wasm. The .mjs and .d.ts go beside it
  std::string entry;   // the function; empty: the only exported one
  std::vector<std::string> dims;    // symbolic dims, "NAME=EXTENT" (every one must be bound)
  std::optional<std::string> tier;  // for a .keg graph that declares none
  std::string compiler = "clang++-14";  // a program in PATH or a path
  // The most tensor memory the module may hold ("64MiB", bytes; L0008 when malformed): a
  // larger arena is refused with T0006. Empty: what wasm32 addresses (4 GiB less 16 MiB).
  std::string budget;
};

struct WasmBuilt {
  std::string wasm_path, loader_path, types_path;
  std::uint64_t wasm_bytes = 0;   // the module's size, custom section included
  std::uint64_t arena_bytes = 0;  // its linear memory for tensors (the plan's arena)
  std::string entry, fingerprint, exec_plan, compiler;
};

RUNG_API Result<WasmBuilt> build_wasm(const Source& source, const WasmBuildOptions& options = {});

// The C++ a module is compiled from (`rung show --rung kernel --backend wasm`); nothing is
// compiled or written.
RUNG_API Result<std::string> wasm_module_source(const Source& source, const WasmBuildOptions& options = {});

// The ops the wasm target has kernels for, sorted.
RUNG_API std::vector<std::string> wasm_supported_ops();

}  // namespace rung
