// `rung tolerances`: the resolution table of tolerance classes per tier and dtype
// (rung::tolerances, rung/registry.h; src/ops/tolerance.cpp is the only place the numbers live).
#include <rung/registry.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"

namespace rung::cli {
namespace {

int run(bool json) {
  auto rows = tolerances();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j{{"tier", r.tier}, {"class", r.tolerance_class}, {"dtype", r.dtype}, {"bitwise", r.bitwise}};
      if (!r.bitwise) j.update({{"max_ulp", r.max_ulp}, {"atol", r.atol}, {"rtol", r.rtol}, {"normwise", r.normwise}});
      list.push_back(j);
    }
    std::cout << nlohmann::json{{"rule", "element passes if bits equal, both NaN, ulp <= max_ulp, or |a-r| <= atol + rtol*|r|; "
                                         "tensor passes if every element passes and ||a-r||/||r|| <= normwise; "
                                         "integers and bool are always bit-exact"},
                                {"rows", list}}.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("An element passes if its bits equal the reference's, both are NaN, its ulp distance <= max_ulp,\n"
              "or |a - r| <= atol + rtol*|r|; a tensor passes if every element passes and ||a - r||/||r|| <= normwise.\n"
              "Integer and bool results are always bit-exact.\n\n");
  std::printf("%-6s %-8s %-5s %8s %8s %8s %9s\n", "tier", "class", "dtype", "max_ulp", "atol", "rtol", "normwise");
  for (const auto& r : rows) {
    if (r.bitwise)
      std::printf("%-6s %-8s %-5s %s\n", r.tier.c_str(), r.tolerance_class.c_str(), r.dtype.c_str(), "bit-exact");
    else
      std::printf("%-6s %-8s %-5s %8g %8g %8g %9g\n", r.tier.c_str(), r.tolerance_class.c_str(), r.dtype.c_str(), r.max_ulp, r.atol,
                  r.rtol, r.normwise);
  }
  return kExitOk;
}

RUNG_COMMAND("tolerances", "Print the tolerance classes resolved per tier and dtype",
             [](CLI::App& sub, const GlobalOptions&) -> Runner {
               auto json = std::make_shared<bool>(false);
               sub.add_flag("--json", *json, "print JSON");
               return [json] { return run(*json); };
             });

}  // namespace
}  // namespace rung::cli
