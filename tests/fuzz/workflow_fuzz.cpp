// libFuzzer target for workflow documents (`make fuzz TARGET=workflow`): JSON bytes through
// the workflow loader to BlockIR, as `rung check/run x.workflow.json` read them. A document
// the loader accepts must pass the BlockIR verifier and print.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_check.h"
#include "ir/block/printer.h"
#include "ir/block/verify.h"
#include "workflow/workflow.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rung::SourceMap sources;
  rung::SourceId id = sources.add("fuzz.workflow.json", std::string(reinterpret_cast<const char*>(data), size));
  rung::DiagnosticSink diags;
  if (auto program = rung::workflow::lower(id, sources, diags)) {
    rung::DiagnosticSink verify;
    if (!rung::block::verify(*program, verify)) std::abort();
    (void)rung::block::print(*program);
  }
  rung::fuzz::check_diagnostics(diags, sources);
  return 0;
}
