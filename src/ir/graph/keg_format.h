// The .keg container: constants shared by the writer and the reader. The byte layout is
// specified in docs/keg-format.md; keep the two in step.
#pragma once

#include <cstdint>
#include <string_view>

namespace rung::keg {

inline constexpr std::uint8_t kMagic[4] = {'K', 'E', 'G', 0};
inline constexpr std::uint16_t kMajor = 1;
inline constexpr std::uint16_t kMinor = 0;
inline constexpr std::uint16_t kMinorWithExecPlan = 1;  // 1.1 adds the optional exec plan section
inline constexpr std::uint16_t kMinorWithBlockIR = 2;   // 1.2 adds the blockir section (not optional)
inline constexpr std::uint32_t kHeaderSize = 56;   // magic, versions, header size, count, table offset, fingerprint
inline constexpr std::uint32_t kEntrySize = 56;    // kind, flags, offset, length, sha3-256
inline constexpr std::uint32_t kMaxSections = 4096;
inline constexpr std::uint32_t kFlagOptional = 1;  // readers that do not know the kind may skip it

enum class SectionKind : std::uint32_t {
  strings = 1, types = 2, attributes = 3, nodes = 4, regions = 5, exports = 6,
  exec_plan = 7,  // optional: an ExecPlan, framed as below, its payload opaque to this layer
  // The program's BlockIR (src/ir/block/keg_program.h frames and decodes it; opaque here).
  // Not marked optional: a reader that cannot run the program's control flow must refuse
  // the file (K0013) rather than run the graph without it.
  blockir = 8,
  // Optional: where the graph came from, as an importer recorded it (the ONNX importer: the
  // model's IR version, opset imports and producer), UTF-8 JSON opaque to this layer. Not
  // part of the fingerprint: the computation is the graph's.
  provenance = 9,
};
inline constexpr std::uint32_t kRequiredKinds = 6;
inline constexpr std::uint32_t kLastKnownKind = 9;

// The exec plan section: u32 frame version; the 32-byte fingerprint of the graph the plan
// was made for (it must equal the header's); then the payload (src/plan decodes it).
inline constexpr std::uint32_t kExecPlanFrameVersion = 1;
inline constexpr std::uint32_t kExecPlanFrameSize = 4 + 32;

std::string_view section_name(std::uint32_t kind);  // "nodes", or "unknown" for other kinds

}  // namespace rung::keg
