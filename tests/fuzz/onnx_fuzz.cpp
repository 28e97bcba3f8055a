// libFuzzer target for ONNX models (`make fuzz TARGET=onnx`): bytes through the importer as
// `rung import` reads them, without a folder (external data is refused, so nothing outside
// the input is read). A model the importer accepts must pass the BlockIR verifier and print;
// every refusal must be a coded diagnostic (fuzz_check.h). Weights are capped at 64 MiB so a
// mutated dim cannot ask for more memory than the replay limits allow.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_check.h"
#include "ir/block/printer.h"
#include "ir/block/verify.h"
#include "onnx/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rung::SourceMap sources;
  rung::DiagnosticSink diags;
  rung::onnx_import::Options o;
  o.limits.max_weight_bytes = std::uint64_t{64} << 20;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto imported = rung::onnx_import::import_model(bytes, "fuzz", o, diags)) {
    rung::DiagnosticSink verify;
    if (!rung::block::verify(imported->program, verify)) std::abort();
    (void)rung::block::print(imported->program);
  }
  rung::fuzz::check_diagnostics(diags, sources);
  return 0;
}
