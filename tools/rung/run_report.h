// What `rung run` prints about a run: the plan's streams, the header lines (fingerprints,
// memory, placement, transfers, fused kernels, reproducibility) and one line per output.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <rung/session.h>
#include <string>
#include <vector>

namespace rung::cli {

void print_streams(const std::vector<StreamStats>& streams, std::FILE* out);
// `backend`: the one asked for (named in the memory line's note).
void print_run_text(const RunResult& r, const std::string& backend, std::FILE* out);
void print_output_line(std::size_t i, const Output& o, const std::string& path, std::FILE* out);
nlohmann::json memory_json(const MemoryStats& m);

}  // namespace rung::cli
