// `rung devices`: what the device registry's probes find on this machine (the CPU's model,
// features, cores and memory; GPUs when their backends are built), and the backends built in
// (rung::devices, rung/registry.h; rung::backends, rung/session.h).
#include <rung/registry.h>
#include <rung/session.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"

namespace rung::cli {
namespace {

int run(bool json, const GlobalOptions&) {
  auto found = devices();
  std::vector<std::string> built;
  for (const auto& b : backends()) built.push_back(b.name);
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& d : found)
      j.push_back({{"kind", d.kind}, {"name", d.name}, {"compute_units", d.compute_units}, {"memory_bytes", d.memory_bytes},
                   {"available_bytes", d.available_bytes}, {"facts", d.facts}});
    std::cout << nlohmann::json{{"devices", j}, {"backends", built}}.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& d : found) std::printf("%s\n", d.description.c_str());
  std::string list;
  for (const auto& b : built) list += (list.empty() ? "" : ", ") + b;
  std::printf("backends: %s\n", list.c_str());
  return kExitOk;
}

RUNG_COMMAND("devices", "List the devices this machine offers (capability probes) and the backends built in",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto json = std::make_shared<bool>(false);
               sub.add_flag("--json", *json, "print JSON");
               return [json, &global] { return run(*json, global); };
             });

}  // namespace
}  // namespace rung::cli
