// Importing ONNX models (docs/onnx.md). Module::load reads .onnx files like any source
// (SourceKind::onnx: the graph becomes one exported function `main` in registry ops, with
// no declared tier); import_onnx writes the program as a .keg file with the model's
// provenance (IR version, opsets, producer) in its optional `provenance` section, as
// `rung import model.onnx -o model.keg` does.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/module.h"
#include "rung/tensor.h"

namespace rung {

// Whether this build has the importer (RUNG_ONNX; without it loading .onnx is C0011).
RUNG_API bool onnx_supported();

struct OnnxImportOptions {
  std::string output;                  // the .keg file; empty: the model's path with .keg
  std::uint64_t max_weight_bytes = 0;  // initializers and constants together; 0: 16 GiB (I0014)
  std::vector<std::string> dims;       // symbolic dims bound at import, "NAME=EXTENT" (LoadOptions::dims)
  std::vector<std::pair<std::string, Tensor>> bind;  // graph inputs made constants (LoadOptions::bind)
};

// `--bind NAME=FILE.npy` as the CLI spells it: the name and the .npy file's tensor (C0020 when
// the spec is malformed; the .npy reader's own codes for the file).
RUNG_API Result<std::pair<std::string, Tensor>> onnx_binding(const std::string& spec);

struct OnnxImported {
  std::string path;
  std::string fingerprint, graph_fingerprint, blockir;  // as rung::build reports them
  std::int64_t ir_version = 0;
  std::string producer;  // "pytorch 1.13.0", empty when the model names none
  std::vector<std::pair<std::string, std::int64_t>> opsets;  // (domain, version)
  std::string provenance;  // the JSON of the .keg's provenance section
};

RUNG_API Result<OnnxImported> import_onnx(const Source& model, const OnnxImportOptions& options = {});

// The graph inputs a caller feeds, in the graph's order (initializers listed as inputs left
// out): what a test data set's input_K.npy files are, and the names LoadOptions::bind takes.
RUNG_API Result<std::vector<std::string>> onnx_graph_inputs(const Source& model);

// One node handler: ONNX op `op_type` of `domain` for opsets since..until (inclusive),
// and the registry ops it emits.
struct OnnxHandlerInfo {
  std::string domain, op_type;
  int since = 0, until = 0;
  std::string how;
};
RUNG_API std::vector<OnnxHandlerInfo> onnx_handlers();  // sorted by op, then since

}  // namespace rung
