// `rung fmt FILE... [--check] [--write]`: the canonical layout of .rung files.
// Without a flag the formatted text goes to standard output.
#include <sys/stat.h>

#include <filesystem>
#include <iostream>

#include "base/file_io.h"
#include "command.h"
#include "syntax/format.h"
#include "syntax/load.h"

namespace rung::cli {
namespace {

struct FmtArgs {
  std::vector<std::string> files;
  bool check = false;
  bool write = false;
};

// The first line where `a` and `b` differ (1-based), and where it starts in `a`.
std::pair<std::uint32_t, std::uint32_t> first_difference(std::string_view a, std::string_view b) {
  std::uint32_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '\n') {
      ++line;
      line_start = static_cast<std::uint32_t>(i + 1);
    }
  return {line, line_start};
}

// Replaces the file's contents atomically, keeping its permission bits and writing through
// a symbolic link rather than over it.
bool replace_file(const std::string& path, const std::string& text, DiagnosticSink& diags) {
  std::error_code ec;
  std::filesystem::path target = std::filesystem::canonical(path, ec);
  if (ec) target = path;
  struct stat st {};
  bool have_mode = ::stat(target.c_str(), &st) == 0;
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  if (!write_file_atomic(target.string(), bytes, diags)) return false;
  if (have_mode) ::chmod(target.c_str(), st.st_mode & 07777);
  return true;
}

int run_fmt(const FmtArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  for (const std::string& file : a.files) {
    std::optional<SourceId> id = syntax::load_source(file, sources, diags);
    if (!id) continue;
    std::string_view original = sources.get(*id).text();
    std::vector<Diagnostic> found;
    std::optional<std::string> formatted = syntax::format_source(original, *id, found);
    for (Diagnostic& d : found) {
      Diagnostic& out = diags.add(d.severity, d.code, d.message);
      out.labels = std::move(d.labels);
      out.notes = std::move(d.notes);
      out.suggestions = std::move(d.suggestions);
    }
    if (!formatted) continue;
    if (a.check) {
      if (*formatted != original) {
        auto [line, start] = first_difference(original, *formatted);
        diags.error("E1902", "`" + file + "` is not formatted")
            .primary(Span{*id, start, start}, "first difference on line " + std::to_string(line))
            .note("run `rung fmt --write " + file + "` to format it");
      }
    } else if (a.write) {
      if (*formatted != original && file != "-") replace_file(file, *formatted, diags);
      else if (file == "-") std::cout << *formatted;
    } else {
      std::cout << *formatted;
    }
  }
  return report(diags, sources, global);
}

RUNG_COMMAND("fmt", "Format .rung files in the canonical style (stdout, --check or --write)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<FmtArgs>();
               sub.add_option("FILE", a->files, "the .rung files (- for standard input)")->required();
               auto* check = sub.add_flag("--check", a->check, "report files that are not formatted; change nothing");
               sub.add_flag("--write", a->write, "rewrite files in place (atomically)")->excludes(check);
               return [a, &global] { return run_fmt(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
