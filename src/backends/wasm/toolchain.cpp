// Runs clang-14 as a child process (posix_spawnp: PATH is searched by the C library, and
// the child's output goes to a file in the build folder, read back for diagnostics).
#include "backends/wasm/toolchain.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/wasm/embedded_headers.h"

extern char** environ;

namespace rung::wasm {

namespace fs = std::filesystem;

namespace {

struct Ran {
  bool started = false;
  int exit_code = -1;
  std::string error;   // why it did not start
  std::string output;  // stdout and stderr together
};

Ran run_process(const std::vector<std::string>& argv, const fs::path& log) {
  Ran r;
#if defined(__EMSCRIPTEN__)
  (void)argv, (void)log;
  r.error = "the engine built for wasm runs no child processes";  // the engine in a browser or node has no clang
  return r;
#else
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.error = std::strerror(rc);
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.started = true;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::ifstream in(log, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  // A shell reports a program it could not exec as 127 (posix_spawnp may do the same).
  if (r.exit_code == 127 && r.output.empty()) {
    r.started = false;
    r.error = "not found";
  }
  return r;
#endif
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A scratch folder that is removed again however the build ends.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "rung-wasm-XXXXXX").string();
    if (char* p = mkdtemp(tmpl.data())) path = p;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

const std::vector<std::string>& compile_flags() {
  static const std::vector<std::string> f{"-std=c++20",     "--target=wasm32", "-msimd128",     "-O2",
                                          "-ffp-contract=off", "-nostdlib",    "-nostdinc++",   "-ffreestanding",
                                          "-fno-exceptions", "-fno-rtti",      "-mbulk-memory",  "-Wl,--no-entry"};
  return f;
}

std::optional<CompiledModule> compile_module(const std::string& compiler, const std::string& cpp, DiagnosticSink& diags) {
  ScratchDir dir;
  if (dir.path.empty()) {
    diags.error("T0005", "cannot create a scratch folder for the wasm build in " + fs::temp_directory_path().string());
    return std::nullopt;
  }
  const std::string need = " (`rung build --target wasm` compiles the generated C++ with Debian's clang-14 and wasm-ld: "
                           "apt-get install clang-14 lld-14; or name the compiler with --cc)";
  Ran version = run_process({compiler, "--version"}, dir.path / "version.txt");
  if (!version.started || version.exit_code != 0) {
    diags.error("T0001", "the wasm compiler `" + compiler + "` cannot be run: " +
                             (version.started ? "`--version` exited with " + std::to_string(version.exit_code) : version.error) + need);
    return std::nullopt;
  }
  CompiledModule out;
  out.compiler = first_line(version.output);
  if (out.compiler.find("clang version 14.") == std::string::npos) {
    diags.error("T0001", "the wasm compiler `" + compiler + "` is `" + out.compiler + "`, not clang 14" + need);
    return std::nullopt;
  }
  fs::path include = dir.path / "include";
  for (const auto& h : embedded_headers()) {
    fs::path p = include / std::string(h.path);
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << h.text;
  }
  fs::path src = dir.path / "module.cpp", wasm = dir.path / "module.wasm";
  std::ofstream(src, std::ios::binary) << cpp;
  std::vector<std::string> argv{compiler};
  for (const auto& f : compile_flags()) argv.push_back(f);
  for (const fs::path& inc : {include / "backends/wasm/kernels/shim", include}) {
    argv.push_back("-I");
    argv.push_back(inc.string());
  }
  argv.insert(argv.end(), {src.string(), "-o", wasm.string()});
  Ran built = run_process(argv, dir.path / "compile.txt");
  if (!built.started || built.exit_code != 0) {
    auto& d = diags.error("T0005", "clang failed to compile the generated module (exit " + std::to_string(built.exit_code) + ")");
    d.note(built.started ? built.output.substr(0, 4000) : built.error);
    return std::nullopt;
  }
  std::ifstream in(wasm, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  out.wasm = ss.str();
  if (out.wasm.size() < 8 || out.wasm.compare(0, 4, std::string("\0asm", 4)) != 0) {
    diags.error("T0005", "clang wrote no wasm module");
    return std::nullopt;
  }
  return out;
}

}  // namespace rung::wasm
