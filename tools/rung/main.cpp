// `rung`: the command-line entry point. Subcommands live in cmd_*.cpp (see command.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <unistd.h>

#include <rung/util.h>

#include "command.h"

namespace rung::cli {

std::vector<CommandInfo>& registry() {
  static std::vector<CommandInfo> commands;
  return commands;
}

int report(const Diagnostics& diags, const GlobalOptions& global) {
  if (global.error_format == "json") {
    if (!diags.empty()) std::cerr << diags.json() << "\n";
  } else {
    std::cerr << diags.text(global.color == "always" || (global.color == "auto" && ::isatty(2)));
  }
  return diags.has_errors() ? kExitDiagnostics : kExitOk;
}


namespace {

// The last line of defence: what still escapes a subcommand is a bug in rung, reported as
// a coded diagnostic (Z0001) with its own exit code, never as an abort.
int guarded(const Runner& run, const GlobalOptions& global) {
  auto internal = [&](const std::string& what) {
    report(Diagnostics::error("Z0001", "internal error (a bug in rung, not in your input): " + what,
                              {"please report it with the command that led here"}),
           global);
    return kExitInternal;
  };
  try {
    return run();
  } catch (const std::bad_alloc&) {
    report(Diagnostics::error("C0004", "out of memory"), global);
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


// The global options' values as written anywhere on the command line (they may follow the
// subcommand), for diagnostics printed before CLI11 has parsed them.
GlobalOptions scan_global(int argc, char** argv) {
  GlobalOptions g;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    for (auto [flag, dst] : {std::pair{std::string_view("--error-format"), &g.error_format}, {"--color", &g.color}}) {
      if (a == flag && i + 1 < argc) *dst = argv[i + 1];
      else if (a.size() > flag.size() && a.substr(0, flag.size() + 1) == std::string(flag) + "=") *dst = a.substr(flag.size() + 1);
    }
  }
  if (g.error_format != "json") g.error_format = "human";
  return g;
}

// The subcommand word: the first argument that is neither a global option nor its value.
// Empty when there is none; nullopt when another option comes first (CLI11 reports it).
std::optional<std::string_view> subcommand_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--error-format" || a == "--color") {
      ++i;
      continue;
    }
    if (a.rfind("--error-format=", 0) == 0 || a.rfind("--color=", 0) == 0) continue;
    if (!a.empty() && a[0] == '-') return std::nullopt;
    return a;
  }
  return std::string_view{};
}

bool asks_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view a = argv[i]; a == "-h" || a == "--help" || a == "--version") return true;
  return false;
}

// A wrong or missing subcommand, as a coded diagnostic: C0019.
int refuse_subcommand(std::string_view word, const std::vector<CommandInfo>& commands, const GlobalOptions& global) {
  std::vector<std::string> names;
  std::string list;
  for (const auto& c : commands) {
    names.push_back(c.name);
    list += (list.empty() ? "" : ", ") + c.name;
  }
  std::vector<std::string> notes;
  if (auto near = rung::closest_choice(word, names); !word.empty() && !near.empty()) notes.push_back("did you mean `" + near + "`?");
  notes.push_back("subcommands: " + list);
  notes.push_back("`rung --help` describes each");
  report(Diagnostics::error("C0019", word.empty() ? "a subcommand is required" : "unknown subcommand `" + std::string(word) + "`", notes),
         global);
  return kExitUsage;
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
  if (!asks_help(argc, argv)) {
    auto word = subcommand_word(argc, argv);
    bool known = word && std::any_of(commands.begin(), commands.end(), [&](const auto& c) { return c.name == *word; });
    if (word && !known) return refuse_subcommand(*word, commands, scan_global(argc, argv));
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
    // A command line CLI11 rejects (an unknown option, a missing value, a value outside its
    // choices): a coded diagnostic like every other error, then the usage hint.
    auto word = subcommand_word(argc, argv);
    report(rung::Diagnostics::error("C0020", e.what(),
                                    {"`rung " + std::string(word ? *word : std::string_view{}) + (word && !word->empty() ? " " : "") +
                                     "--help` lists the options"}),
           scan_global(argc, argv));
    return kExitUsage;
  }
  for (auto& [sub, run] : runners)
    if (sub->parsed()) return guarded(run, global);
  return kExitUsage;
}

int main(int argc, char** argv) { return rung::cli::on_big_stack(rung_main, argc, argv); }
