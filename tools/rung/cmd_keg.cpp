// `rung inspect`, `rung hash`, `rung validate`: look into .keg files, BlockIR included
// (rung::inspect_keg, rung/inspect.h: the file read and checked in full).
#include <rung/inspect.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"

namespace rung::cli {
namespace {

std::string entry_list(const KegBlockIR& p) {
  std::string list;
  for (const auto& f : p.functions)
    if (f.exported) list += (list.empty() ? "" : ", ") + f.name;
  return list.empty() ? "none" : list;
}

struct InspectArgs {
  std::string file;
  bool json = false;
  bool nodes = false;
};

int inspect(const InspectArgs& a, const GlobalOptions& global) {
  auto loaded = inspect_keg(Source::file(a.file), a.nodes);
  if (!loaded) return report(loaded.diagnostics(), global);
  const KegInfo& k = *loaded;
  if (a.json) {
    nlohmann::json secs = nlohmann::json::array();
    for (const auto& s : k.sections)
      secs.push_back({{"kind", s.kind}, {"kind_code", s.kind_code}, {"flags", s.flags},
                      {"offset", s.offset}, {"length", s.length}, {"sha3_256", s.sha3_256}});
    nlohmann::json exports = nlohmann::json::object();
    for (const auto& e : k.exports) exports[e.name] = e.region;
    nlohmann::json j{{"file", a.file}, {"bytes", k.bytes},
                     {"format", std::to_string(k.major) + "." + std::to_string(k.minor)},
                     {"fingerprint", k.fingerprint}, {"graph_fingerprint", k.graph_fingerprint},
                     {"sections", secs}, {"nodes", k.nodes}, {"regions", k.regions}, {"exports", exports},
                     {"blockir", nullptr}};
    if (k.blockir) {
      nlohmann::json fns = nlohmann::json::array();
      for (const auto& f : k.blockir->functions) fns.push_back({{"name", f.name}, {"exported", f.exported}});
      j["blockir"] = {{"hash", k.blockir->hash}, {"module", k.blockir->module}, {"tier", k.blockir->tier},
                      {"tolerance", k.blockir->tolerance}, {"functions", fns}};
    }
    if (a.nodes) j["node_list"] = nlohmann::json::parse(k.node_json);
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("file         %s (%llu bytes)\n", a.file.c_str(), static_cast<unsigned long long>(k.bytes));
    std::printf("format       keg %u.%u\n", k.major, k.minor);
    std::printf("fingerprint  %s\n", k.fingerprint.c_str());
    std::printf("graph        %s\n", k.graph_fingerprint.c_str());
    if (k.blockir)
      std::printf("blockir      %s (module %s, tier %s, tolerance %s; %zu functions, exported: %s)\n", k.blockir->hash.c_str(),
                  k.blockir->module.c_str(), k.blockir->tier.c_str(), k.blockir->tolerance.c_str(), k.blockir->functions.size(),
                  entry_list(*k.blockir).c_str());
    else
      std::printf("blockir      none (the graph alone: a run needs --tier and runs each export)\n");
    std::printf("sections     %zu\n", k.sections.size());
    std::printf("  %-11s %10s %10s  %s\n", "kind", "offset", "length", "sha3-256");
    for (const auto& s : k.sections)
      std::printf("  %-11s %10llu %10llu  %s\n", s.kind.c_str(), static_cast<unsigned long long>(s.offset),
                  static_cast<unsigned long long>(s.length), s.sha3_256.substr(0, 16).c_str());
    std::printf("nodes        %llu\n", static_cast<unsigned long long>(k.nodes));
    std::printf("regions      %llu\n", static_cast<unsigned long long>(k.regions));
    std::printf("exports      %zu\n", k.exports.size());
    for (const auto& e : k.exports) std::printf("  %-16s region %s\n", e.name.c_str(), e.region.substr(0, 16).c_str());
    if (a.nodes) std::printf("\n%s", k.node_text.c_str());
  }
  return report(loaded.diagnostics(), global);
}

RUNG_COMMAND("inspect", "Show a .keg file: fingerprint, sections, counts, and optionally every node",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<InspectArgs>();
               sub.add_option("FILE", a->file, "the .keg file")->required();
               sub.add_flag("--json", a->json, "print JSON instead of text");
               sub.add_flag("--nodes", a->nodes, "list every node (index, hash, opcode, inputs, types, attributes)");
               return [a, &global] { return inspect(*a, global); };
             });

RUNG_COMMAND("hash", "Print the fingerprint of a .keg file: the program's (graph and BlockIR), recomputed and checked",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto graph = std::make_shared<bool>(false);
               sub.add_option("FILE", *file, "the .keg file")->required();
               sub.add_flag("--graph", *graph, "print the graph fingerprint instead (the GraphIR alone)");
               return [file, graph, &global] {
                 auto k = inspect_keg(Source::file(*file));
                 if (k) std::printf("%s\n", (*graph ? k->graph_fingerprint : k->fingerprint).c_str());
                 return report(k.diagnostics(), global);
               };
             });

RUNG_COMMAND("validate", "Check a .keg file: container, checksums, every GraphIR invariant and its BlockIR",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               sub.add_option("FILE", *file, "the .keg file")->required();
               return [file, &global] {
                 auto k = inspect_keg(Source::file(*file));
                 if (k) {
                   std::string blockir = k->blockir ? std::to_string(k->blockir->functions.size()) + " BlockIR functions (exported: " +
                                                          entry_list(*k->blockir) + ")"
                                                    : "no BlockIR";
                   std::printf("%s: valid (%llu nodes, %llu regions, %zu exports, %s, fingerprint %s)\n", file->c_str(),
                               static_cast<unsigned long long>(k->nodes), static_cast<unsigned long long>(k->regions),
                               k->exports.size(), blockir.c_str(), k->fingerprint.substr(0, 16).c_str());
                 }
                 return report(k.diagnostics(), global);
               };
             });

}  // namespace
}  // namespace rung::cli
