// Writing programs as .keg files: `rung build` (a .rung source to the whole program, GraphIR
// and BlockIR, optionally optimised and with its memory plan) and `rung opt` (GraphIR passes
// over a .keg file). The pass pipeline validates the graph after every pass; the list of
// passes is rung::pass_list() (registry.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/module.h"

namespace rung {

struct PassPipeline {
  std::vector<std::string> passes;       // pass names, in order; empty: the default pipeline
  std::vector<std::string> print_after;  // pass names, or "all": the IR after each goes to `print`
  bool stats = false;  // per-pass statistics (runs, changes, nodes added/removed, time) to `print` at the end
  // Receives the printed IR and the statistics as they are made (empty: dropped). What it
  // got stands when a later pass fails.
  std::function<void(std::string_view text)> print;
};

struct BuildOptions {
  std::string output;  // the .keg file; empty: the source's path with .keg
  bool optimize = false;  // run `pipeline` over the program first
  PassPipeline pipeline;
  // Store the memory plan of `entry` (default: the only exported function) for `device`
  // (cpu | cuda | webgpu) in the file, symbolic dims bound by `dims` ("N=128", L0008 when
  // malformed). The plan is made for the program as lowered: not with `optimize` (L0009).
  bool plan = false;
  std::string device = "cpu", entry;
  std::vector<std::string> dims;
};

struct Built {
  std::string path;
  std::string fingerprint;        // the program's (graph and BlockIR): what `rung run` prints
  std::string graph_fingerprint;  // the GraphIR's
  std::string blockir;            // the BlockIR's hash
  struct Plan {
    std::string hash, entry, device;
  };
  std::optional<Plan> exec_plan;  // with BuildOptions::plan
};

// Checks and lowers a .rung source file and writes it (atomically) as a .keg file.
RUNG_API Result<Built> build(const Source& source, const BuildOptions& options = {});

struct OptimizeOptions {
  std::string output;  // where to write the optimised file; empty: nothing is written
  PassPipeline pipeline;
};

struct Optimized {
  bool written = false;
  std::string path;
  std::uint64_t nodes = 0;
  std::string fingerprint_before, fingerprint_after;  // the program's when the file has BlockIR, else the graph's
};

// The pass pipeline over a .keg file. A file with BlockIR stays a whole program: its compute
// statements follow the regions the passes rewrite.
RUNG_API Result<Optimized> optimize(const Source& keg, const OptimizeOptions& options = {});

}  // namespace rung
