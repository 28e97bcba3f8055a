// `rung tolerances`: the resolution table of tolerance classes per tier and dtype
// (src/ops/tolerance.cpp is the only place the numbers live).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"
#include "ops/tolerance.h"

namespace rung::cli {
namespace {

using namespace rung::ops;

int run(bool json) {
  auto rows = tolerance_table();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j{{"tier", tier_name(r.tier)}, {"class", tol_class_name(r.cls)}, {"dtype", dtype_name(r.dtype)},
                       {"bitwise", r.t.bitwise}};
      if (!r.t.bitwise) j.update({{"max_ulp", r.t.max_ulp}, {"atol", r.t.atol}, {"rtol", r.t.rtol}, {"normwise", r.t.normwise}});
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
    if (r.t.bitwise)
      std::printf("%-6s %-8s %-5s %s\n", std::string(tier_name(r.tier)).c_str(), std::string(tol_class_name(r.cls)).c_str(),
                  std::string(dtype_name(r.dtype)).c_str(), "bit-exact");
    else
      std::printf("%-6s %-8s %-5s %8g %8g %8g %9g\n", std::string(tier_name(r.tier)).c_str(),
                  std::string(tol_class_name(r.cls)).c_str(), std::string(dtype_name(r.dtype)).c_str(), r.t.max_ulp, r.t.atol,
                  r.t.rtol, r.t.normwise);
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
