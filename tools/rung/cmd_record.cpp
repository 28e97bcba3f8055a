// `rung record ID`: show one run record from the store (an id prefix is enough);
// `rung record --list`: every record, newest first.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "command.h"
#include "conformance/run_record.h"

namespace rung::cli {
namespace {

struct RecordArgs {
  std::string id;
  bool list = false, json = false;
};

int run(const RecordArgs& a, const GlobalOptions& global) {
  DiagnosticSink diags;
  conformance::Store store;
  if (a.list) {
    std::vector<std::pair<Hash256, conformance::RunRecord>> recs;
    for (const auto& id : store.list("records")) {
      DiagnosticSink d;
      auto bytes = store.get("records", id, d);
      std::string err;
      std::optional<conformance::RunRecord> r;
      if (bytes) r = conformance::RunRecord::decode(*bytes, err);
      if (!bytes || !r) {
        diags.warning("Q0008", "skipping damaged record '" + store.path("records", id) + "': " +
                                   (bytes ? err : (d.all().empty() ? "?" : d.all().front().message)));
        continue;
      }
      recs.emplace_back(id, std::move(*r));
    }
    std::sort(recs.begin(), recs.end(), [](const auto& x, const auto& y) { return x.second.date > y.second.date; });
    if (a.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& [id, r] : recs) j.push_back(r.to_json());
      std::cout << nlohmann::json{{"store", store.root()}, {"records", j}}.dump(2) << "\n";
    } else {
      for (const auto& [id, r] : recs)
        std::printf("%s  %s  %-10s %-6s %-10s %s --entry %s\n", id.short_hex(16).c_str(), r.date.c_str(), r.backend.c_str(),
                    r.tier.c_str(), r.replayable ? "replayable" : "convergent", r.program_path.c_str(), r.entry.c_str());
      std::printf("%zu records in %s\n", recs.size(), store.root().c_str());
    }
    return report(diags, SourceMap{}, global);
  }
  if (a.id.empty()) {
    diags.error("Q0006", "give a record id (or a prefix of one), or --list");
    report(diags, SourceMap{}, global);
    return kExitUsage;
  }
  auto rec = conformance::load_record(store, a.id, diags);
  if (!rec) return report(diags, SourceMap{}, global);
  if (a.json) std::cout << rec->second.to_json().dump(2) << "\n";
  else std::fputs(rec->second.to_text().c_str(), stdout);
  return report(diags, SourceMap{}, global);
}

RUNG_COMMAND("record", "Show a run record from the local store ($RUNG_HOME), or list them",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<RecordArgs>();
               sub.add_option("ID", a->id, "the record's id (a unique prefix is enough)");
               sub.add_flag("--list", a->list, "list every record, newest first");
               sub.add_flag("--json", a->json, "print JSON");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
