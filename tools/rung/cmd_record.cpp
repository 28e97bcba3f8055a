// `rung record ID`: show one run record from the store (an id prefix is enough);
// `rung record --list`: every record, newest first.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <rung/record.h>

#include "command.h"

namespace rung::cli {
namespace {

struct RecordArgs {
  std::string id;
  bool list = false, json = false;
};

int run(const RecordArgs& a, const GlobalOptions& global) {
  Environment env = Environment::from_process();
  if (a.list) {
    auto recs = list_records(env);
    if (a.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& r : *recs) j.push_back(nlohmann::json::parse(r.json));
      std::cout << nlohmann::json{{"store", env.home}, {"records", j}}.dump(2) << "\n";
    } else {
      for (const auto& r : *recs)
        std::printf("%s  %s  %-10s %-6s %-10s %s --entry %s\n", r.id.substr(0, 16).c_str(), r.date.c_str(), r.backend.c_str(),
                    r.tier.c_str(), r.replayable ? "replayable" : "convergent", r.program.c_str(), r.entry.c_str());
      std::printf("%zu records in %s\n", recs->size(), env.home.c_str());
    }
    return report(recs.diagnostics(), global);
  }
  if (a.id.empty()) {
    report(Diagnostics::error("Q0006", "give a record id (or a prefix of one), or --list"), global);
    return kExitUsage;
  }
  auto rec = find_record(env, a.id);
  if (!rec) return report(rec.diagnostics(), global);
  if (a.json) std::cout << nlohmann::json::parse(rec->json).dump(2) << "\n";
  else std::fputs(rec->text.c_str(), stdout);
  return report(rec.diagnostics(), global);
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
