// How subcommands join the `rung` CLI: each cmd_*.cpp registers itself with a static
// RUNG_COMMAND; main() builds the CLI11 app from the registry, sorted by name. Adding a
// command touches only its own file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include <rung/diagnostics.h>

#include "exit_codes.h"

namespace rung::cli {

struct GlobalOptions {
  std::string error_format = "human";  // human | json
  std::string color = "auto";          // auto | always | never
};

using Runner = std::function<int()>;
// Adds options to `sub` and returns the function that runs the command once parsed.
using Setup = std::function<Runner(CLI::App& sub, const GlobalOptions& global)>;

struct CommandInfo {
  std::string name;
  std::string description;
  Setup setup;
};

std::vector<CommandInfo>& registry();

struct Registrar {
  Registrar(std::string name, std::string description, Setup setup) {
    registry().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

// Prints diagnostics to stderr in the chosen format. Returns kExitDiagnostics if any is an
// error, otherwise kExitOk.
int report(const Diagnostics& diags, const GlobalOptions& global);

}  // namespace rung::cli

#define RUNG_CLI_CONCAT2(a, b) a##b
#define RUNG_CLI_CONCAT(a, b) RUNG_CLI_CONCAT2(a, b)
// Variadic so that lambdas with commas in their capture lists pass through whole.
#define RUNG_COMMAND(name, description, ...) \
  static ::rung::cli::Registrar RUNG_CLI_CONCAT(rung_command_, __LINE__)(name, description, __VA_ARGS__)
