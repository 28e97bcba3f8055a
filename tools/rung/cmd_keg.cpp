// `rung inspect`, `rung hash`, `rung validate`: look into .keg files, BlockIR included.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ir/graph/keg_format.h"
#include "ir/graph/printer.h"

namespace rung::cli {
namespace {

// A .keg file read and checked in full: the graph, and the BlockIR when it has a section.
struct Loaded {
  KegFile file;
  std::optional<block::Program> program;
  // The program fingerprint (graph and BlockIR); a file without BlockIR is its graph alone.
  Hash256 fingerprint() const { return program ? block::program_fingerprint(*program) : file.graph.fingerprint(); }
};

std::optional<Loaded> load(const std::string& path, SourceMap& sources, DiagnosticSink& diags) {
  auto keg = load_keg(path, sources, diags);
  if (!keg) return std::nullopt;
  Loaded l{std::move(*keg), std::nullopt};
  if (block::blockir_section(l.file)) {
    l.program = block::read_blockir(l.file, l.file.graph, diags);
    if (!l.program) return std::nullopt;
  }
  return l;
}

std::string entry_list(const block::Program& p) {
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
  SourceMap sources;
  DiagnosticSink diags;
  auto loaded = load(a.file, sources, diags);
  if (!loaded) return report(diags, sources, global);
  const KegFile* keg = &loaded->file;
  const Graph& g = keg->graph;
  const std::optional<block::Program>& program = loaded->program;
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
                     {"fingerprint", loaded->fingerprint().hex()}, {"graph_fingerprint", g.fingerprint().hex()},
                     {"sections", secs}, {"nodes", g.node_count()}, {"regions", g.region_count()}, {"exports", exports},
                     {"blockir", nullptr}};
    if (program) {
      nlohmann::json fns = nlohmann::json::array();
      for (const auto& f : program->functions) fns.push_back({{"name", f.name}, {"exported", f.exported}});
      j["blockir"] = {{"hash", program->hash().hex()}, {"module", program->module}, {"tier", program->determinism.tier},
                      {"tolerance", program->determinism.tolerance}, {"functions", fns}};
    }
    if (a.nodes) {
      nlohmann::json list = nlohmann::json::array();
      for (NodeId id = 0; id < g.node_count(); ++id) list.push_back(node_to_json(g, id));
      j["node_list"] = list;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("file         %s (%zu bytes)\n", a.file.c_str(), file_size);
    std::printf("format       keg %u.%u\n", keg->major, keg->minor);
    std::printf("fingerprint  %s\n", loaded->fingerprint().hex().c_str());
    std::printf("graph        %s\n", g.fingerprint().hex().c_str());
    if (program)
      std::printf("blockir      %s (module %s, tier %s, tolerance %s; %zu functions, exported: %s)\n", program->hash().hex().c_str(),
                  program->module.c_str(), program->determinism.tier.c_str(), program->determinism.tolerance.c_str(),
                  program->functions.size(), entry_list(*program).c_str());
    else
      std::printf("blockir      none (the graph alone: a run needs --tier and runs each export)\n");
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

RUNG_COMMAND("hash", "Print the fingerprint of a .keg file: the program's (graph and BlockIR), recomputed and checked",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto graph = std::make_shared<bool>(false);
               sub.add_option("FILE", *file, "the .keg file")->required();
               sub.add_flag("--graph", *graph, "print the graph fingerprint instead (the GraphIR alone)");
               return [file, graph, &global] {
                 SourceMap sources;
                 DiagnosticSink diags;
                 auto l = load(*file, sources, diags);
                 if (l) std::printf("%s\n", (*graph ? l->file.graph.fingerprint() : l->fingerprint()).hex().c_str());
                 return report(diags, sources, global);
               };
             });

RUNG_COMMAND("validate", "Check a .keg file: container, checksums, every GraphIR invariant and its BlockIR",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               sub.add_option("FILE", *file, "the .keg file")->required();
               return [file, &global] {
                 SourceMap sources;
                 DiagnosticSink diags;
                 auto l = load(*file, sources, diags);
                 if (l) {
                   const Graph& g = l->file.graph;
                   std::string blockir = l->program ? std::to_string(l->program->functions.size()) + " BlockIR functions (exported: " +
                                                          entry_list(*l->program) + ")"
                                                    : "no BlockIR";
                   std::printf("%s: valid (%zu nodes, %zu regions, %zu exports, %s, fingerprint %s)\n", file->c_str(), g.node_count(),
                               g.region_count(), g.exports().size(), blockir.c_str(), l->fingerprint().short_hex(16).c_str());
                 }
                 return report(diags, sources, global);
               };
             });

}  // namespace
}  // namespace rung::cli
