// Fuzzes the front end in process: mutated examples and semantic cases go through parsing,
// the semantic checks and lowering, for RUNG_FUZZ_SECONDS (default 60) of wall time. Any
// crash, failed assertion or input that takes longer than the per-input guard fails the
// test; the input at fault is printed (and written to $RUNG_FUZZ_OUT if set) so that it can
// be replayed with `rung check`.
//
// Mutations (seeded, so a run is reproducible from its seed): byte flips, deletion and
// duplication of a token, a token replaced by another of the same input, `&`/`&mut`/`mut`/
// `@device`/`copy(`/`to_device(` inserted, deletion or duplication of a line, and splices of
// lines from another input.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#include "frontend/frontend.h"
#include "syntax/lexer.h"
#include "syntax/parse.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The input being processed, for the crash and hang reports (read from a signal handler).
char g_current[1 << 16];
std::size_t g_current_len = 0;
std::atomic<std::int64_t> g_started_ms{-1};

// The guard measures the fuzzing thread's CPU time, not wall time: on a loaded machine (CI runs
// tests in parallel) a slow wall clock is not a hang, while CPU time spent on one input is.
clockid_t g_worker_clock;
std::int64_t now_ms() {
  timespec ts{};
  clock_gettime(g_worker_clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void report_current(const char* why) {
  const char* head = "\n=== front-end fuzz: ";
  (void)!write(2, head, std::strlen(head));
  (void)!write(2, why, std::strlen(why));
  const char* mid = " on this input ===\n";
  (void)!write(2, mid, std::strlen(mid));
  (void)!write(2, g_current, g_current_len);
  (void)!write(2, "\n=== end of input ===\n", 22);
  if (const char* out = std::getenv("RUNG_FUZZ_OUT")) {
    if (FILE* f = std::fopen(out, "wb")) {
      std::fwrite(g_current, 1, g_current_len, f);
      std::fclose(f);
    }
  }
}

void on_signal(int sig) {
  report_current(sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT (an assertion?)" : "a fatal signal");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line + "\n");
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x;
  return s;
}

// Token boundaries by a light scan: identifiers/numbers, strings, single punctuation.
std::vector<std::pair<std::size_t, std::size_t>> tokens(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t j = i + 1;
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    if (std::isalnum(c) || c == '_') {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.')) ++j;
    } else if (c == '"') {
      while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
      if (j < s.size()) ++j;
    }
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

class Mutator {
 public:
  Mutator(std::uint64_t seed, const std::vector<std::string>& corpus) : rng_(seed), corpus_(corpus) {}

  std::string next() {
    std::string s = corpus_[pick(corpus_.size())];
    int rounds = 1 + static_cast<int>(pick(3));
    for (int r = 0; r < rounds; ++r) s = mutate(std::move(s));
    if (s.size() > sizeof(g_current) - 1) s.resize(sizeof(g_current) - 1);
    return s;
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

  std::string mutate(std::string s) {
    if (s.empty()) return corpus_[pick(corpus_.size())];
    switch (pick(8)) {
      case 0: {  // byte flips
        int n = 1 + static_cast<int>(pick(4));
        for (int k = 0; k < n; ++k) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        return s;
      }
      case 1: case 2: {  // delete or duplicate a token
        auto t = tokens(s);
        if (t.empty()) return s;
        auto [b, e] = t[pick(t.size())];
        if (pick(2)) return s.erase(b, e - b);
        return s.insert(e, " " + s.substr(b, e - b));
      }
      case 3: {  // an identifier or number replaced by another token of the input
        auto t = tokens(s);
        if (t.size() < 2) return s;
        auto [b, e] = t[pick(t.size())];
        auto [b2, e2] = t[pick(t.size())];
        std::string with = s.substr(b2, e2 - b2);
        return s.replace(b, e - b, with);
      }
      case 4: {  // delete or duplicate a line
        auto lines = split_lines(s);
        if (lines.empty()) return s;
        std::size_t i = pick(lines.size());
        if (pick(2)) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        else lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), lines[i]);
        return join(lines);
      }
      case 5: {  // ownership and spaces: `&`, `&mut `, `mut ` or ` @device` inserted at a token
        auto t = tokens(s);
        if (t.empty()) return s;
        static const char* bits[] = {"&", "&mut ", "mut ", " @device", "copy(", ")", "to_device(", "to_host("};
        auto [b, e] = t[pick(t.size())];
        return s.insert(pick(2) ? b : e, bits[pick(8)]);
      }
      default: {  // splice: lines of another input inserted here
        auto lines = split_lines(s);
        auto other = split_lines(corpus_[pick(corpus_.size())]);
        if (other.empty()) return s;
        std::size_t from = pick(other.size()), n = 1 + pick(std::min<std::size_t>(8, other.size() - from));
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size() + 1)), other.begin() + static_cast<std::ptrdiff_t>(from),
                     other.begin() + static_cast<std::ptrdiff_t>(from + n));
        return join(lines);
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& corpus_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The seeds: every example, and every program of the semantic cases (split at `// -----`).
std::vector<std::string> load_corpus(const fs::path& root) {
  std::vector<std::string> corpus;
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "tests/frontend/cases", "tests/frontend/cases/lib", "tests/frontend/programs"})
    if (fs::is_directory(root / dir))
      for (const auto& e : fs::directory_iterator(root / dir))
        if (e.path().extension() == ".rung") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string text = read_file(f);
    std::string cur;
    for (const auto& line : split_lines(text)) {
      if (line.rfind("// -----", 0) == 0) {
        corpus.push_back((cur.find("tier ") == std::string::npos ? "module t; tier debug;\n" : "") + cur);
        cur.clear();
        continue;
      }
      cur += line;
    }
    corpus.push_back((cur.find("tier ") == std::string::npos ? "module t; tier debug;\n" : "") + cur);
  }
  return corpus;
}

// One input through the pipeline `rung check` and `rung build` run: syntax, then (when the
// syntax is clean) the semantic checks and lowering. Named inside cases/ so imports resolve.
std::size_t run_one(const std::string& text, const std::string& name) {
  rung::SourceMap sources;
  rung::SourceId id = sources.add(name, text);
  rung::DiagnosticSink diags;
  auto tree = rung::syntax::check_syntax(sources, id, diags);
  if (diags.has_errors()) return 0;
  auto program = rung::frontend::lower(tree, sources, id, diags);
  return program ? 2 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = argc > 1 ? argv[1] : RUNG_SOURCE_DIR;
  double seconds = 60;
  if (const char* s = std::getenv("RUNG_FUZZ_SECONDS")) seconds = std::atof(s);
  std::uint64_t seed = 20261129;
  if (const char* s = std::getenv("RUNG_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
  const std::int64_t guard_ms = 5000;  // CPU ms per input: lowering a small program takes milliseconds
  pthread_getcpuclockid(pthread_self(), &g_worker_clock);

  auto corpus = load_corpus(root);
  if (corpus.size() < 20) {
    std::fprintf(stderr, "front-end fuzz: only %zu seed programs found under %s\n", corpus.size(), root.c_str());
    return 1;
  }
  std::signal(SIGSEGV, on_signal);
  std::signal(SIGABRT, on_signal);
  std::signal(SIGFPE, on_signal);
  std::signal(SIGBUS, on_signal);

  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::int64_t started = g_started_ms.load();
      if (started >= 0 && now_ms() - started > guard_ms) {
        report_current("an input took more than 5 s of CPU time (a hang?)");
        std::_Exit(3);
      }
    }
  });

  std::string name = (root / "tests/frontend/cases/fuzz.rung").string();
  Mutator m(seed, corpus);
  auto end = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
  std::size_t runs = 0, parsed = 0, lowered = 0;
  // The unmutated seeds first: they must all go through without trouble too.
  for (std::size_t i = 0;; ++i) {
    std::string input = i < corpus.size() ? corpus[i] : m.next();
    std::memcpy(g_current, input.data(), std::min(input.size(), sizeof(g_current) - 1));
    g_current_len = std::min(input.size(), sizeof(g_current) - 1);
    g_started_ms.store(now_ms());
    std::size_t r = run_one(input, name);
    g_started_ms.store(-1);
    ++runs;
    parsed += r >= 1;
    lowered += r == 2;
    if (i >= corpus.size() && Clock::now() >= end) break;
  }
  done.store(true);
  watchdog.join();
  std::printf("front-end fuzz: seed %llu, %zu seeds, %zu inputs in %.0f s: %zu passed the syntax stage, %zu lowered\n",
              static_cast<unsigned long long>(seed), corpus.size(), runs, seconds, parsed, lowered);
  return 0;
}
