// The main() of a fuzz target built without libFuzzer (g++, `make test`): runs
// LLVMFuzzerTestOneInput once per input file, each in a forked child, and fails when a child
// crashes or aborts, or uses more CPU time or memory than the input's size justifies:
//   cpu_ms <= time_base_ms + time_per_kib_ms * KiB     max RSS <= mem_base_mib + mem_per_byte * size
// CPU time (not wall time) is judged, so a loaded machine does not make the replay flaky; a
// wall-clock alarm and RLIMIT_CPU/RLIMIT_AS stop a child that would run away. An input is a
// file, or the standard output of a generator script (NAME.EXT.gen.py / NAME.EXT.gen.sh), so
// large pathological inputs need not be committed.
//
//   replay [--limits=TB,TK,MB,MK] [--ext=.a,.b] [--optional] [--mutate=N,SEED] PATH...
// --mutate adds N mutants of the inputs (byte flips, inserts, deletes, splices; seeded, so a
// run is repeatable); a failing mutant is written to the temporary folder and named.
// --ext filters the files of the folders named after it (none: every file); --optional lets
// the folders named after it be missing (tests/crashes before any crash is recorded).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
namespace fs = std::filesystem;

struct Limits {
  double time_base_ms = 2000, time_per_kib_ms = 50;  // 2 s + 50 ms per KiB of input
  double mem_base_mib = 256, mem_per_byte = 2048;    // 256 MiB + 2 KiB per input byte
  double cpu_ms(std::size_t size) const { return time_base_ms + time_per_kib_ms * static_cast<double>(size) / 1024.0; }
  double rss_bytes(std::size_t size) const { return mem_base_mib * 1048576.0 + mem_per_byte * static_cast<double>(size); }
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A generator's name without ".gen.py"/".gen.sh", or "" when `name` is not a generator.
std::string generated_name(const std::string& name) {
  for (const char* g : {".gen.py", ".gen.sh"})
    if (ends_with(name, g)) return name.substr(0, name.size() - std::strlen(g));
  return {};
}

bool matches(const fs::path& p, const std::vector<std::string>& exts) {
  if (exts.empty()) return true;
  std::string name = p.filename().string();
  std::string gen = generated_name(name);
  if (!gen.empty()) name = gen;
  return std::any_of(exts.begin(), exts.end(), [&](const std::string& e) { return ends_with(name, e); });
}

bool read_input(const fs::path& p, std::string& out, std::string& error) {
  std::string name = p.filename().string();
  if (!generated_name(name).empty()) {
    std::string cmd = (ends_with(name, ".py") ? "/usr/bin/python3 '" : "/bin/sh '") + p.string() + "'";
    FILE* f = ::popen(cmd.c_str(), "r");
    if (!f) return error = "cannot start the generator", false;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    int st = ::pclose(f);
    if (st != 0) return error = "the generator failed (status " + std::to_string(st) + ")", false;
    return true;
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) return error = "cannot read the file", false;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

// Runs one input in a child; "" when it stayed within its limits, else why not.
std::string run_one(const std::string& data, const Limits& lim) {
  double cpu_limit = lim.cpu_ms(data.size()), rss_limit = lim.rss_bytes(data.size());
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    rlim_t cpu_s = static_cast<rlim_t>(cpu_limit / 1000.0) + 2;
    rlimit cpu{cpu_s, cpu_s + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer reserves terabytes of address space for its shadow
    rlim_t as = static_cast<rlim_t>(rss_limit) * 2 + (rlim_t{1} << 30);  // a hard stop well past the judged limit
    rlimit mem{as, as};
    ::setrlimit(RLIMIT_AS, &mem);
#endif
    ::alarm(static_cast<unsigned>(cpu_s * 10 + 10));  // blocked, not computing: a hang all the same
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    std::_Exit(0);
  }
  int status = 0;
  rusage ru{};
  if (::wait4(pid, &status, 0, &ru) != pid) return "wait failed";
  double cpu_ms = (static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0);
  double rss = static_cast<double>(ru.ru_maxrss) * 1024.0;
  char why[256];
  if (cpu_ms > cpu_limit || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)) {
    std::snprintf(why, sizeof why, "used %.0f ms CPU, over the limit of %.0f ms for %zu bytes", cpu_ms, cpu_limit, data.size());
    return why;
  }
  if (WIFSIGNALED(status)) {
    std::snprintf(why, sizeof why, "killed by signal %d (%s) after %.0f ms CPU", WTERMSIG(status), strsignal(WTERMSIG(status)), cpu_ms);
    return why;
  }
  if (WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (rss > rss_limit) {
    std::snprintf(why, sizeof why, "used %.0f MiB, over the limit of %.0f MiB for %zu bytes", rss / 1048576.0, rss_limit / 1048576.0,
                  data.size());
    return why;
  }
  return {};
}

// A few random edits of `a`, sometimes spliced with `b`: what libFuzzer's mutator does first.
std::string mutate(std::string a, const std::string& b, std::mt19937_64& rng) {
  int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    std::size_t at = a.empty() ? 0 : rng() % (a.size() + 1);
    switch (rng() % 5) {
      case 0:
        if (at < a.size()) a[at] = static_cast<char>(a[at] ^ (1u << (rng() % 8)));
        break;
      case 1: a.insert(at, 1, static_cast<char>(rng())); break;
      case 2:
        if (at < a.size()) a.erase(at, 1 + rng() % std::min<std::size_t>(16, a.size() - at));
        break;
      case 3:
        if (at < a.size()) a[at] = static_cast<char>(rng());
        break;
      default:
        if (!b.empty()) {
          std::size_t from = rng() % b.size();
          a.insert(at, b.substr(from, 1 + rng() % std::min<std::size_t>(64, b.size() - from)));
        }
    }
  }
  return a;
}

bool parse_limits(const std::string& s, Limits& lim) {
  std::istringstream in(s);
  char c1 = 0, c2 = 0, c3 = 0;
  return static_cast<bool>(in >> lim.time_base_ms >> c1 >> lim.time_per_kib_ms >> c2 >> lim.mem_base_mib >> c3 >> lim.mem_per_byte) &&
         c1 == ',' && c2 == ',' && c3 == ',';
}
}  // namespace

int main(int argc, char** argv) {
  Limits lim;
  std::vector<std::string> exts;
  bool optional = false;
  std::vector<fs::path> inputs;
  int bad_args = 0;
  unsigned long mutants = 0, seed = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--mutate=", 0) == 0) {
      char comma = 0;
      std::istringstream in(a.substr(9));
      if (!(in >> mutants >> comma >> seed) || comma != ',')
        ++bad_args, std::fprintf(stderr, "replay: bad %s (want --mutate=N,SEED)\n", a.c_str());
    } else if (a.rfind("--limits=", 0) == 0) {
      if (!parse_limits(a.substr(9), lim)) ++bad_args, std::fprintf(stderr, "replay: bad %s (want --limits=TB,TK,MB,MK)\n", a.c_str());
    } else if (a.rfind("--ext=", 0) == 0) {
      exts.clear();
      std::stringstream ss(a.substr(6));
      for (std::string e; std::getline(ss, e, ',');)
        if (!e.empty()) exts.push_back(e);
    } else if (a == "--optional") {
      optional = true;
    } else {
      std::error_code ec;
      if (fs::is_directory(a, ec)) {
        std::vector<fs::path> found;
        for (fs::recursive_directory_iterator it(a, ec), end; !ec && it != end; it.increment(ec))
          if (it->is_regular_file(ec) && matches(it->path(), exts)) found.push_back(it->path());
        std::sort(found.begin(), found.end());
        inputs.insert(inputs.end(), found.begin(), found.end());
      } else if (fs::is_regular_file(a, ec)) {
        inputs.emplace_back(a);
      } else if (!optional) {
        ++bad_args, std::fprintf(stderr, "replay: no file or folder '%s'\n", a.c_str());
      }
    }
  }
  if (bad_args) return 2;
  int failed = 0;
  for (const fs::path& p : inputs) {
    std::string data, why;
    if (!read_input(p, data, why)) why = "input: " + why;
    else why = run_one(data, lim);
    if (!why.empty()) {
      ++failed;
      std::printf("FAIL %s: %s\n", p.string().c_str(), why.c_str());
    }
  }
  if (mutants) {
    std::vector<std::string> pool;
    for (const fs::path& p : inputs) {
      std::string data, why;
      if (read_input(p, data, why)) pool.push_back(std::move(data));
    }
    if (pool.empty()) pool.emplace_back();
    std::mt19937_64 rng(seed);
    for (unsigned long k = 0; k < mutants; ++k) {
      std::string m = mutate(pool[rng() % pool.size()], pool[rng() % pool.size()], rng);
      std::string why = run_one(m, lim);
      if (why.empty()) continue;
      ++failed;
      fs::path keep = fs::temp_directory_path() / ("replay-mutant-" + std::to_string(seed) + "-" + std::to_string(k));
      std::ofstream(keep, std::ios::binary).write(m.data(), static_cast<std::streamsize>(m.size()));
      std::printf("FAIL mutant %lu (seed %lu, kept as %s): %s\n", k, seed, keep.string().c_str(), why.c_str());
    }
  }
  std::printf("replayed %zu inputs and %lu mutants, %d failed\n", inputs.size(), mutants, failed);
  return failed ? 1 : 0;
}
