// `rung`: the command-line entry point. Subcommands live in cmd_*.cpp (see command.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "base/diagnostic_render.h"
#include "command.h"

namespace rung::cli {

std::vector<CommandInfo>& registry() {
  static std::vector<CommandInfo> commands;
  return commands;
}

int report(const DiagnosticSink& diags, const SourceMap& sources, const GlobalOptions& global) {
  if (global.error_format == "json") {
    if (!diags.empty()) std::cerr << to_json(diags, sources).dump(2) << "\n";
  } else {
    RenderOptions opts;
    opts.color = global.color == "always" || (global.color == "auto" && ::isatty(2));
    std::cerr << render_text(diags, sources, opts);
  }
  return diags.has_errors() ? kExitDiagnostics : kExitOk;
}

}  // namespace rung::cli

int main(int argc, char** argv) {
  using namespace rung::cli;
  CLI::App app{"rung: a deterministic tensor compiler and runtime", "rung"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand: `rung check f.rung --error-format=json`
  app.set_version_flag("--version", "rung 0.1.0");
  GlobalOptions global;
  app.add_option("--error-format", global.error_format, "how diagnostics are printed")
      ->check(CLI::IsMember({"human", "json"}))
      ->capture_default_str();
  app.add_option("--color", global.color, "colour diagnostics")->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();

  auto& commands = registry();
  std::sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<CLI::App*, Runner> runners;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners[sub] = c.setup(*sub, global);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  for (auto& [sub, run] : runners)
    if (sub->parsed()) {
      try {
        return run();
      } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "rung: error[C0004]: out of memory\n");
        return kExitDiagnostics;
      }
    }
  return kExitUsage;
}
