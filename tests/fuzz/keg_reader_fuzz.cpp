// libFuzzer target for the .keg reader (the blockir section included: decoded, verified and
// rewritten): `make fuzz-keg` (60 s by default). Each input is read twice: as given, and
// with its section checksums repaired, so that mutations reach the section parsers and the
// validator instead of stopping at K0004.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ir/graph/validator.h"
#include "keg/keg_surgery.h"

namespace {
void run(const std::vector<std::uint8_t>& bytes) {
  rung::DiagnosticSink diags;
  auto file = rung::read_keg(bytes, 0, diags);
  if (!file) return;
  if (!rung::validate(file->graph, diags)) return;
  (void)file->graph.fingerprint();
  (void)rung::write_keg(file->graph);
  // A whole program: the blockir section decoded and verified against the graph, rewritten.
  if (rung::block::blockir_section(*file))
    if (auto program = rung::block::read_blockir(*file, file->graph, diags)) (void)rung::block::write_program_keg(*program, {}, diags);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> bytes(data, data + size);
  run(bytes);
  rung::keg_surgery::repair_checksums(bytes);
  run(bytes);
  return 0;
}
