// The pass pipeline flags as `rung build -O` and `rung opt` take them: --passes (default
// pipeline when empty), --print-after (comma-separated or `all`; each printed graph goes to
// stdout) and --stats. One place, so that the two commands cannot drift apart.
#pragma once

#include <rung/build.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace rung::cli {

struct PipelineArgs {
  std::string passes;       // comma-separated pass names; empty: the default pipeline
  std::string print_after;  // comma-separated pass names, or `all`
  bool stats = false;
};

inline std::vector<std::string> split_pass_names(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

// The pipeline, its printed IR and statistics going to standard output as they are made.
inline PassPipeline pipeline_of(const PipelineArgs& a) {
  PassPipeline p;
  p.passes = split_pass_names(a.passes);
  p.print_after = split_pass_names(a.print_after);
  p.stats = a.stats;
  p.print = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };
  return p;
}

}  // namespace rung::cli
