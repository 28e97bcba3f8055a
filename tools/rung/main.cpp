// `rung`: the command-line entry point. Subcommands live in cmd_*.cpp (see command.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <exception>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <pthread.h>
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
    if (!diags.empty()) std::cerr << to_json(diags, sources).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    RenderOptions opts;
    opts.color = global.color == "always" || (global.color == "auto" && ::isatty(2));
    std::cerr << render_text(diags, sources, opts);
  }
  return diags.has_errors() ? kExitDiagnostics : kExitOk;
}

namespace {

// The last line of defence: what still escapes a subcommand is a bug in rung, reported as
// a coded diagnostic (I0001) with its own exit code, never as an abort.
int guarded(const Runner& run, const GlobalOptions& global) {
  auto internal = [&](const std::string& what) {
    DiagnosticSink d;
    d.error("I0001", "internal error (a bug in rung, not in your input): " + what)
        .note("please report it with the command that led here");
    report(d, SourceMap{}, global);
    return kExitInternal;
  };
  try {
    return run();
  } catch (const std::bad_alloc&) {
    DiagnosticSink d;
    d.error("C0004", "out of memory");
    report(d, SourceMap{}, global);
    return kExitDiagnostics;
  } catch (const std::exception& e) {
    return internal(e.what());
  } catch (...) {
    return internal("an unknown exception");
  }
}

// Walks over syntax trees, BlockIR and GraphIR are bounded by the nesting limits; the
// command still runs on a thread with a large stack so that a walk that slipped past a
// bound degrades to a slower run, not a stack overflow.
constexpr std::size_t kStackBytes = std::size_t{256} << 20;

struct Job {
  int (*body)(int, char**);
  int argc;
  char** argv;
  int rc = 0;
};

int on_big_stack(int (*body)(int, char**), int argc, char** argv) {
  Job job{body, argc, argv};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
                 pthread_create(&thread, &attr, [](void* p) -> void* {
                   auto* j = static_cast<Job*>(p);
                   j->rc = j->body(j->argc, j->argv);
                   return nullptr;
                 }, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return body(argc, argv);  // no room for the big stack (e.g. under ulimit -v): run here
  pthread_join(thread, nullptr);
  return job.rc;
}

}  // namespace
}  // namespace rung::cli

static int rung_main(int argc, char** argv) {
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
    if (sub->parsed()) return guarded(run, global);
  return kExitUsage;
}

int main(int argc, char** argv) { return rung::cli::on_big_stack(rung_main, argc, argv); }
