// libFuzzer target for the .keg reader (the blockir section included: decoded, verified and
// rewritten): `make fuzz TARGET=keg_reader` (60 s by default).
// Each input is read twice: as given, and with its section checksums repaired, so that
// mutations reach the section parsers and the validator instead of stopping at K0004.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ir/graph/validator.h"
#include "keg/keg_surgery.h"

namespace {
void run(const std::vector<std::uint8_t>& bytes) {
  rung::SourceMap sources;
  rung::SourceId id = sources.add("fuzz.keg", std::string(bytes.begin(), bytes.end()), /*binary=*/true);
  rung::DiagnosticSink diags;
  auto file = rung::read_keg(bytes, id, diags);
  if (file && rung::validate(file->graph, diags)) {
    (void)file->graph.fingerprint();
    (void)rung::write_keg(file->graph);
    if (rung::block::blockir_section(*file))
      if (auto program = rung::block::read_blockir(*file, file->graph, diags))
        (void)rung::block::write_program_keg(*program, {}, diags);
  }
  rung::fuzz::check_diagnostics(diags, sources);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> bytes(data, data + size);
  run(bytes);
  rung::keg_surgery::repair_checksums(bytes);
  run(bytes);
  return 0;
}
