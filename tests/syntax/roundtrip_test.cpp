// Property test: for thousands of randomly mutated programs, print(parse(bytes)) == bytes,
// the parser neither crashes nor gets stuck (no E1199), every diagnostic points inside the
// file, and whenever a mutant happens to parse cleanly the formatter accepts it, passes its
// own check, and is idempotent on it. Deterministic: a fixed seed, its own generator.
// RUNG_ROUNDTRIP_CASES and RUNG_ROUNDTRIP_SEED change the run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "syntax/dump.h"
#include "syntax/format.h"
#include "syntax/parse.h"

namespace rung::syntax {
namespace {

namespace fs = std::filesystem;

// splitmix64: tiny, and the same sequence on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t s_;
};

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  auto add_file = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    // Case files hold many programs; each becomes a seed of its own.
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t next = text.find("// -----\n", pos);
      out.push_back(text.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
      if (next == std::string::npos) break;
      pos = next + 9;
    }
  };
  for (const char* dir : {"examples", "tests/syntax/cases"})
    for (const auto& e : fs::directory_iterator(fs::path(RUNG_SOURCE_DIR) / dir))
      if (e.path().extension() == ".rung") add_file(e.path());
  std::sort(out.begin(), out.end());  // directory order is not stable; the run must be
  return out;
}

const char* const kFragments[] = {
    "fn", "let", "mut", "if", "else", "for", "in", "while", "return", "struct", "export", "import", "module",
    "tier", "tolerance", "override", "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "..", "..=", "->", "&",
    "&&", "||", "!", "=", "==", "<", ">=", "+", "-", "*", "/", "%", "@", "+=", "@device", "\"", "\"s\"", "/*",
    "*/", "//", "///", "\n", " ", "\t", "0x", "1e", "1.5", "42", "x", "_", "\xFF", "\xC3", "\xE2\x80\x9C",
    "\\", "$", "#", "\r\n", "f32[B, 4]", "a.0.1", "{ }", "( )", "[ ]"};

std::string mutate(const std::string& seed, const std::vector<std::string>& all, Rng& rng) {
  std::string s = seed;
  std::size_t rounds = 1 + rng.below(4);
  for (std::size_t r = 0; r < rounds; ++r) {
    std::size_t at = rng.below(s.size() + 1);
    switch (rng.below(6)) {
      case 0:  // delete a short range
        s.erase(at, 1 + rng.below(8));
        break;
      case 1:  // insert random bytes
        for (std::size_t i = 0, n = 1 + rng.below(4); i < n; ++i) s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng.below(256)));
        break;
      case 2:  // insert a fragment of the language
        s.insert(at, kFragments[rng.below(sizeof kFragments / sizeof kFragments[0])]);
        break;
      case 3: {  // duplicate a range
        std::string piece = s.substr(at, 1 + rng.below(24));
        s.insert(rng.below(s.size() + 1), piece);
        break;
      }
      case 4: {  // splice in a piece of another program
        const std::string& other = all[rng.below(all.size())];
        std::size_t from = rng.below(other.size() + 1);
        s.insert(at, other.substr(from, 1 + rng.below(40)));
        break;
      }
      default:  // overwrite a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.below(256));
        break;
    }
  }
  return s;
}

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(RoundTrip, MutatedProgramsPrintBackAndNeverBreakTheParser) {
  std::vector<std::string> all = corpus();
  ASSERT_GT(all.size(), 50u);
  std::uint64_t cases = env_or("RUNG_ROUNDTRIP_CASES", 6000);
  std::uint64_t seed = env_or("RUNG_ROUNDTRIP_SEED", 20261129);
  Rng rng(seed);
  std::size_t clean = 0, formatted_changed = 0;
  for (std::uint64_t i = 0; i < cases; ++i) {
    std::string input = i < all.size() ? all[i] : mutate(all[rng.below(all.size())], all, rng);
    Parse p = parse(input, 0);
    std::string where = "case " + std::to_string(i) + " (seed " + std::to_string(seed) + "), input:\n" + input;
    ASSERT_EQ(p.tree.text(), input) << where;
    ASSERT_EQ(p.tree.root().range().end, input.size()) << where;
    for (const Diagnostic& d : p.diagnostics) {
      ASSERT_NE(d.code, "E1199") << where;
      const Label* l = d.primary_label();
      ASSERT_NE(l, nullptr) << where;
      ASSERT_LE(l->span.begin, l->span.end) << where;
      ASSERT_LE(l->span.end, input.size()) << where;
    }
    if (p.has_errors()) continue;
    ++clean;
    std::vector<Diagnostic> diags;
    std::optional<std::string> once = format_source(input, 0, diags);
    ASSERT_TRUE(once.has_value()) << dump_diagnostics(diags) << where;
    formatted_changed += *once != input;
    std::optional<std::string> twice = format_source(*once, 0, diags);
    ASSERT_TRUE(twice.has_value()) << dump_diagnostics(diags) << where;
    ASSERT_EQ(*twice, *once) << "formatting is not idempotent on " << where << "\nfirst pass:\n" << *once;
  }
  // The run must exercise both sides: broken inputs, and clean ones the formatter handles.
  EXPECT_GT(clean, cases / 50) << "too few mutants parse cleanly to test the formatter";
  EXPECT_LT(clean, cases) << "mutations should break most programs";
  EXPECT_GT(formatted_changed, 0u);
}

}  // namespace
}  // namespace rung::syntax
