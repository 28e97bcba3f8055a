// What `rung build --target wasm` writes besides the code: the `rung` custom section appended
// to the module (JSON: fingerprint, ExecPlan hash, tier, tolerance, the entry's signature,
// the compiler), the ES-module loader prog.mjs and its types prog.d.ts. The loader uses no
// host API beyond WebAssembly (and fetch for a URL): node and browsers run it alike.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "backends/wasm/lower_entry.h"

namespace rung::wasm {

// The entry's inputs and outputs as JSON: [{name, dtype, shape, bytes}].
nlohmann::json ports_json(const std::vector<PortInfo>& ports);

// `module` with a custom section named `name` holding `payload` appended (a custom section
// may follow the last section of a valid module).
std::string append_custom_section(std::string module, const std::string& name, const std::string& payload);

// prog.mjs: `load(source)` (a URL, Response, bytes or WebAssembly.Module) gives
// `{signature, run(inputs)}`; inputs and outputs are typed arrays by name.
std::string loader_mjs(const std::string& wasm_file, const nlohmann::json& section);
std::string loader_dts(const ModuleSource& m);

}  // namespace rung::wasm
