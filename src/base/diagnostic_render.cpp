#include "base/diagnostic_render.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace rung {
namespace {

struct Style {
  bool on;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "1;31";
    case Severity::Warning: return "1;33";
    case Severity::Note: return "1;36";
  }
  return "0";
}

// Spaces (or tabs, mirroring the source) up to byte `upto` of `line`, then `width` marks.
std::string underline(std::string_view line, std::size_t upto, std::size_t width, char mark) {
  std::string out;
  std::size_t pos = 0;
  while (pos < upto && pos < line.size()) {
    char32_t cp;
    std::size_t len = utf8::decode(line, pos, cp);
    out += line[pos] == '\t' ? '\t' : ' ';
    pos += len == 0 ? 1 : len;
  }
  out.append(std::max<std::size_t>(width, 1), mark);
  return out;
}

std::size_t scalar_count(std::string_view s) {
  std::size_t n = 0, pos = 0;
  while (pos < s.size()) {
    char32_t cp;
    std::size_t len = utf8::decode(s, pos, cp);
    pos += len == 0 ? 1 : len;
    ++n;
  }
  return n;
}

// A source line longer than this is shown as a window around its labels, with `…` where
// text is cut: one diagnostic on a 30 KB line must not print 30 KB (or underline it).
constexpr std::size_t kLineWindow = 120;
constexpr std::size_t kLeadIn = 40;  // bytes shown before the first label

// Moves `pos` back to the start of the UTF-8 sequence it is inside.
std::size_t char_start(std::string_view s, std::size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

std::string location(const Span& span, const SourceMap& sources) {
  const SourceFile& f = sources.get(span.source);
  if (f.binary()) {
    std::string s = f.name() + " @ byte " + std::to_string(span.begin);
    if (span.size() > 0) s += " (" + std::to_string(span.size()) + (span.size() == 1 ? " byte)" : " bytes)");
    return s;
  }
  LineCol lc = f.line_col(span.begin);
  return f.name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

}  // namespace

std::string render_text(const Diagnostic& d, const SourceMap& sources, const RenderOptions& opts) {
  Style st{opts.color};
  std::string out;
  if (opts.tool_prefix) out += "rung: ";
  out += st(severity_color(d.severity), std::string(severity_name(d.severity)) + "[" + d.code + "]");
  out += st("1", ": " + d.message) + "\n";

  // Text sources: group labels by (source, line); binary sources: one location line each.
  const Label* prim = d.primary_label();
  std::map<std::pair<SourceId, std::uint32_t>, std::vector<const Label*>> by_line;
  std::vector<const Label*> binary_labels;
  for (const auto& l : d.labels) {
    if (!l.span.valid() || l.span.source >= sources.size()) continue;
    const SourceFile& f = sources.get(l.span.source);
    if (f.binary()) binary_labels.push_back(&l);
    else by_line[{l.span.source, f.line_col(l.span.begin).line}].push_back(&l);
  }
  std::uint32_t max_line = 0;
  for (const auto& [key, _] : by_line) max_line = std::max(max_line, key.second);
  std::string gutter(std::to_string(max_line).size(), ' ');

  if (prim && prim->span.valid() && prim->span.source < sources.size())
    out += gutter + st("1;34", "--> ") + location(prim->span, sources) + "\n";
  for (const Label* l : binary_labels)
    if (l != prim || !l->message.empty())
      out += gutter + st("1;34", " = ") + location(l->span, sources) + (l->message.empty() ? "" : ": " + l->message) + "\n";

  SourceId last_source = kNoSource;
  for (auto& [key, labels] : by_line) {
    const SourceFile& f = sources.get(key.first);
    if (last_source != kNoSource && key.first != last_source)
      out += gutter + st("1;34", "::: ") + f.name() + "\n";
    last_source = key.first;
    std::string_view text = f.line_text(key.second);
    std::uint32_t line_begin = f.line_start(key.second);
    std::string num = std::to_string(key.second);
    num.insert(0, gutter.size() - num.size(), ' ');
    out += gutter + st("1;34", " |") + "\n";
    std::sort(labels.begin(), labels.end(), [](const Label* a, const Label* b) { return a->span.begin < b->span.begin; });
    // The part of the line shown: all of it, or a window from a little before the first label.
    std::size_t from = 0, to = text.size();
    if (text.size() > kLineWindow) {
      std::size_t first = std::min<std::size_t>(labels.front()->span.begin - line_begin, text.size());
      from = char_start(text, first > kLeadIn ? first - kLeadIn : 0);
      to = char_start(text, std::min(text.size(), from + kLineWindow));
    }
    std::string_view shown = text.substr(from, to - from);
    std::string lead = from > 0 ? "\u2026" : "";
    out += st("1;34", num + " |") + " " + lead + std::string(shown) + (to < text.size() ? "\u2026" : "") + "\n";
    for (const Label* l : labels) {
      std::size_t col = std::clamp<std::size_t>(l->span.begin - line_begin, from, to) - from;
      std::size_t end = std::clamp<std::size_t>(l->span.end - line_begin, from, to) - from;
      std::size_t width = end > col ? scalar_count(shown.substr(col, end - col)) : 1;
      bool multi_line = l->span.end > line_begin + text.size() + 1;
      std::string mark = (lead.empty() ? "" : " ") + underline(shown, col, width, l->primary ? '^' : '-');
      std::string msg = l->message + (multi_line ? " (span continues on following lines)" : "");
      out += gutter + st("1;34", " |") + " " + st(l->primary ? severity_color(d.severity) : "1;34", mark + (msg.empty() ? "" : " " + msg)) + "\n";
    }
  }
  for (const auto& n : d.notes) out += gutter + st("1;34", " = ") + st("1", "note") + ": " + n + "\n";
  for (const auto& s : d.suggestions) {
    out += gutter + st("1;34", " = ") + st("1", "help") + ": " + s.message;
    if (s.span.valid() && s.span.source < sources.size() && !sources.get(s.span.source).binary())
      out += " (at " + location(s.span, sources) + ", replace with `" + s.replacement + "`)";
    out += "\n";
  }
  return out;
}

namespace {
// How many diagnostics are shown: all of them up to the kMaxErrors-th error; what follows is
// summed up in one note (a 30 KB garbage file can make tens of thousands).
std::size_t shown_count(const DiagnosticSink& sink) {
  std::size_t errors = 0;
  for (std::size_t i = 0; i < sink.all().size(); ++i)
    if (sink.all()[i].severity == Severity::Error && ++errors > kMaxErrorsShown) return i;
  return sink.all().size();
}

Diagnostic not_shown_note(const DiagnosticSink& sink, std::size_t shown) {
  std::size_t errors = 0, others = 0;
  for (std::size_t i = shown; i < sink.all().size(); ++i) (sink.all()[i].severity == Severity::Error ? errors : others)++;
  Diagnostic d;
  d.code = "C0099";
  d.severity = Severity::Note;
  d.message = std::to_string(errors) + " more error" + (errors == 1 ? "" : "s") +
              (others ? " and " + std::to_string(others) + " more warnings and notes" : "") + " not shown";
  d.note("only the first " + std::to_string(kMaxErrorsShown) + " errors are shown; fix those first");
  return d;
}
}  // namespace

std::string render_text(const DiagnosticSink& sink, const SourceMap& sources, const RenderOptions& opts) {
  std::string out;
  std::size_t shown = shown_count(sink);
  for (std::size_t i = 0; i < shown; ++i) out += render_text(sink.all()[i], sources, opts);
  if (shown < sink.all().size()) out += render_text(not_shown_note(sink, shown), sources, opts);
  return out;
}

nlohmann::json to_json(const Diagnostic& d, const SourceMap& sources) {
  // Messages quote the input byte for byte (a token, a header, a file name); JSON text must
  // be UTF-8, so bytes that are not become U+FFFD.
  auto text = [](const std::string& s) { return utf8::scrub(s); };
  auto span_json = [&](const Span& s) -> nlohmann::json {
    if (!s.valid() || s.source >= sources.size()) return nullptr;
    const SourceFile& f = sources.get(s.source);
    nlohmann::json j{{"file", text(f.name())}, {"begin", s.begin}, {"end", s.end}};
    if (!f.binary()) {
      LineCol a = f.line_col(s.begin), b = f.line_col(s.end);
      j["line"] = a.line;
      j["column"] = a.column;
      j["end_line"] = b.line;
      j["end_column"] = b.column;
    }
    return j;
  };
  nlohmann::json labels = nlohmann::json::array();
  for (const auto& l : d.labels) labels.push_back({{"span", span_json(l.span)}, {"message", text(l.message)}, {"primary", l.primary}});
  nlohmann::json sugg = nlohmann::json::array();
  for (const auto& s : d.suggestions)
    sugg.push_back({{"span", span_json(s.span)}, {"replacement", text(s.replacement)}, {"message", text(s.message)}});
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : d.notes) notes.push_back(text(n));
  return {{"code", text(d.code)}, {"severity", severity_name(d.severity)}, {"message", text(d.message)},
          {"labels", labels}, {"notes", notes}, {"suggestions", sugg}};
}

nlohmann::json to_json(const DiagnosticSink& sink, const SourceMap& sources) {
  nlohmann::json arr = nlohmann::json::array();
  std::size_t shown = shown_count(sink);
  for (std::size_t i = 0; i < shown; ++i) arr.push_back(to_json(sink.all()[i], sources));
  if (shown < sink.all().size()) arr.push_back(to_json(not_shown_note(sink, shown), sources));
  return arr;
}

}  // namespace rung
