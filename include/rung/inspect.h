// Looking at programs without running them: the diagnostics of sources (`rung check`), what
// the parser made of one (`rung parse`), the canonical layout (`rung fmt`), the IR a program
// lowers to (`rung show`), what a .keg file holds (`rung inspect`, `hash`, `validate`) and
// the built-in sample graph (`rung sample`). A Source that is a file named `-` reads
// standard input (check, parse, fmt).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/module.h"

namespace rung {

// The diagnostics of .rung sources and workflow .json documents, in the order given: the
// syntax of each, then its semantic checks when its syntax is clean; a workflow is checked
// by lowering it. What is found is the product: errors here are the sources' errors.
RUNG_API Diagnostics check(const std::vector<Source>& sources);

struct ParseOptions {
  bool tree = false;    // the lossless syntax tree
  bool events = false;  // the parser's Start/Token/Finish/Error events; neither flag: the tree
};

// What the parser made of a source. Parsing never fails: the dump and the syntax errors come
// together (a file that cannot be read gives no text, only its diagnostic).
struct SyntaxDump {
  std::string text;  // events first when both are asked for
  Diagnostics diagnostics;
};
RUNG_API SyntaxDump parse(const Source& source, const ParseOptions& options = {});

enum class FormatMode {
  print,  // the formatted text of each source, concatenated
  check,  // E1902 for each source that is not formatted; nothing changes
  write,  // files rewritten in place (atomically, permissions kept, through a symbolic link)
};

struct Formatted {
  // print: every source formatted; write: those that have no file (standard input, bytes).
  std::string text;
  Diagnostics diagnostics;  // syntax errors (such a source is left as it is), E1902, write failures
};
RUNG_API Formatted format(const std::vector<Source>& sources, FormatMode mode = FormatMode::print);

struct ShowOptions {
  std::string ir = "block";  // block (BlockIR text) | graph (GraphIR regions) | plan | kernel
  // ir `kernel`: whose generated kernels (C0017 unless the build generates that backend's
  // kernels: webgpu); a file source that names a registry op and no file lists that op's
  // kernel at the operand `types` ("f32[4,8]", one per operand).
  std::string backend;
  std::vector<std::string> types;
};

// The text of what `source` lowers to. `plan`: the ExecPlan a .keg file carries (`rung build
// --plan`; its hash verified, K0025 when it was made for another program), else one made now
// for the cpu. A bare .keg graph is shown at tier debug.
RUNG_API Result<std::string> show(const Source& source, const ShowOptions& options = {});

struct KegSectionInfo {
  std::string kind;  // "nodes", "blockir", ... ("unknown" for a kind this build does not know)
  std::uint32_t kind_code = 0, flags = 0;
  std::uint64_t offset = 0, length = 0;
  std::string sha3_256;  // hex
};
struct KegExport {
  std::string name, region;  // the region's hash, hex
};
struct KegFunction {
  std::string name;
  bool exported = false;
};
struct KegBlockIR {
  std::string hash, module, tier, tolerance;
  std::vector<KegFunction> functions;  // in the program's order
};

// A .keg file read and checked in full (container, checksums, every GraphIR invariant, its
// BlockIR when it has that section).
struct KegInfo {
  std::string file;
  std::uint64_t bytes = 0;
  std::uint16_t major = 0, minor = 0;  // format version
  std::string fingerprint;        // the program's (graph and BlockIR); without BlockIR the graph's
  std::string graph_fingerprint;  // the GraphIR's alone
  std::vector<KegSectionInfo> sections;
  std::uint64_t nodes = 0, regions = 0;
  std::vector<KegExport> exports;   // by name
  std::optional<KegBlockIR> blockir;
  // With `nodes`: every node (index, hash, opcode, inputs, types, attributes), as a JSON
  // array and as a listing for people.
  std::string node_json, node_text;
};
RUNG_API Result<KegInfo> inspect_keg(const Source& keg, bool nodes = false);

enum class Sample { mlp };
struct WrittenKeg {
  std::string path;
  std::uint64_t bytes = 0, nodes = 0;
  std::string fingerprint;
  std::string regions;  // the graph's regions as text
};
// Writes a built-in sample graph as a .keg file (atomically).
RUNG_API Result<WrittenKeg> write_sample(Sample sample, const std::string& path);

}  // namespace rung
