// libFuzzer target for the whole front end (`make fuzz TARGET=program`): .rung source through
// the syntax check, the semantic checks and lowering, as `rung check` and `rung build` run it.
// A program the front end accepts must pass the BlockIR verifier and print.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "frontend/frontend.h"
#include "fuzz/fuzz_check.h"
#include "ir/block/printer.h"
#include "ir/block/verify.h"
#include "syntax/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rung::SourceMap sources;
  rung::SourceId id = sources.add("fuzz.rung", std::string(reinterpret_cast<const char*>(data), size));
  rung::DiagnosticSink diags;
  rung::syntax::SyntaxTree tree = rung::syntax::check_syntax(sources, id, diags);
  if (!diags.has_errors())
    if (auto program = rung::frontend::lower(tree, sources, id, diags)) {
      rung::DiagnosticSink verify;
      if (!rung::block::verify(*program, verify)) std::abort();
      (void)rung::block::print(*program);
    }
  rung::fuzz::check_diagnostics(diags, sources);
  return 0;
}
