// `rung inspect`, `rung hash`, `rung validate`: look into .keg files.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "ir/graph/keg.h"
#include "ir/graph/keg_format.h"
#include "ir/graph/printer.h"

namespace rung::cli {
namespace {

struct InspectArgs {
  std::string file;
  bool json = false;
  bool nodes = false;
};

int inspect(const InspectArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  auto keg = load_keg(a.file, sources, diags);
  if (!keg) return report(diags, sources, global);
  const Graph& g = keg->graph;
  std::size_t file_size = sources.get(0).text().size();
  if (a.json) {
    nlohmann::json secs = nlohmann::json::array();
    for (const auto& s : keg->sections)
      secs.push_back({{"kind", keg::section_name(s.kind)}, {"kind_code", s.kind}, {"flags", s.flags},
                      {"offset", s.offset}, {"length", s.length}, {"sha3_256", s.checksum.hex()}});
    nlohmann::json exports = nlohmann::json::object();
    for (const auto& [name, r] : g.exports()) exports[name] = g.region(r).hash.hex();
    nlohmann::json j{{"file", a.file}, {"bytes", file_size},
                     {"format", std::to_string(keg->major) + "." + std::to_string(keg->minor)},
                     {"fingerprint", g.fingerprint().hex()}, {"sections", secs},
                     {"nodes", g.node_count()}, {"regions", g.region_count()}, {"exports", exports}};
    if (a.nodes) {
      nlohmann::json list = nlohmann::json::array();
      for (NodeId id = 0; id < g.node_count(); ++id) list.push_back(node_to_json(g, id));
      j["node_list"] = list;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("file         %s (%zu bytes)\n", a.file.c_str(), file_size);
    std::printf("format       keg %u.%u\n", keg->major, keg->minor);
    std::printf("fingerprint  %s\n", g.fingerprint().hex().c_str());
    std::printf("sections     %zu\n", keg->sections.size());
    std::printf("  %-11s %10s %10s  %s\n", "kind", "offset", "length", "sha3-256");
    for (const auto& s : keg->sections)
      std::printf("  %-11s %10llu %10llu  %s\n", std::string(keg::section_name(s.kind)).c_str(),
                  static_cast<unsigned long long>(s.offset), static_cast<unsigned long long>(s.length),
                  s.checksum.short_hex(16).c_str());
    std::printf("nodes        %zu\n", g.node_count());
    std::printf("regions      %zu\n", g.region_count());
    std::printf("exports      %zu\n", g.exports().size());
    for (const auto& [name, r] : g.exports())
      std::printf("  %-16s region %s\n", name.c_str(), g.region(r).hash.short_hex(16).c_str());
    if (a.nodes) std::printf("\n%s", list_nodes(g).c_str());
  }
  return report(diags, sources, global);
}

RUNG_COMMAND("inspect", "Show a .keg file: fingerprint, sections, counts, and optionally every node",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<InspectArgs>();
               sub.add_option("FILE", a->file, "the .keg file")->required();
               sub.add_flag("--json", a->json, "print JSON instead of text");
               sub.add_flag("--nodes", a->nodes, "list every node (index, hash, opcode, inputs, types, attributes)");
               return [a, &global] { return inspect(*a, global); };
             });

RUNG_COMMAND("hash", "Print the graph fingerprint of a .keg file (recomputed and checked)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               sub.add_option("FILE", *file, "the .keg file")->required();
               return [file, &global] {
                 SourceMap sources;
                 DiagnosticSink diags;
                 auto keg = load_keg(*file, sources, diags);
                 if (keg) std::printf("%s\n", keg->graph.fingerprint().hex().c_str());
                 return report(diags, sources, global);
               };
             });

RUNG_COMMAND("validate", "Check a .keg file: container, checksums, and every GraphIR invariant",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               sub.add_option("FILE", *file, "the .keg file")->required();
               return [file, &global] {
                 SourceMap sources;
                 DiagnosticSink diags;
                 auto keg = load_keg(*file, sources, diags);
                 if (keg)
                   std::printf("%s: valid (%zu nodes, %zu regions, %zu exports, fingerprint %s)\n", file->c_str(),
                               keg->graph.node_count(), keg->graph.region_count(), keg->graph.exports().size(),
                               keg->graph.fingerprint().short_hex(16).c_str());
                 return report(diags, sources, global);
               };
             });

}  // namespace
}  // namespace rung::cli
