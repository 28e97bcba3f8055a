#include "syntax/dump.h"

#include <algorithm>
#include <cstdio>

#include "base/utf8.h"

namespace rung::syntax {
namespace {

std::string range_text(std::uint32_t begin, std::uint32_t end) {
  return "@" + std::to_string(begin) + ".." + std::to_string(end);
}

// Indentation by depth, capped so a ten-thousand-deep operator chain dumps in linear size;
// past the cap the depth is written out instead.
constexpr std::size_t kMaxIndent = 64;
void indent(std::string& out, std::size_t depth) {
  out.append(std::min(depth, kMaxIndent) * 2, ' ');
  if (depth > kMaxIndent) out += "[" + std::to_string(depth) + "] ";
}

}  // namespace

std::string quote(std::string_view text) {
  std::string out = "\"";
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp;
    std::size_t len = utf8::decode(text, pos, cp);
    unsigned char c = static_cast<unsigned char>(text[pos]);
    char buf[8];
    if (len == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      pos += 1;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out.append(text.substr(pos, len));
    }
    pos += len;
  }
  return out + "\"";
}

std::string dump_tree(const SyntaxTree& tree) {
  std::string out;
  Preorder walk(tree.root());
  Preorder::Step step;
  std::size_t depth = 0;
  while (walk.next(step)) {
    if (!step.enter) {
      --depth;
      continue;
    }
    indent(out, depth);
    TextRange r = step.element.range();
    out += kind_name(step.element.kind());
    out += range_text(r.begin, r.end);
    if (step.element.is_token()) {
      out += ' ';
      out += quote(step.element.token().text());
    } else {
      ++depth;
    }
    out += '\n';
  }
  return out;
}

std::string dump_events(const Lexed& lexed, const ParseOutput& po) {
  std::string out;
  std::size_t depth = 0;
  for (std::size_t i = 0; i < po.events.size(); ++i) {
    const Event& e = po.events[i];
    if (e.kind == EventKind::Finish && depth > 0) --depth;
    indent(out, depth);
    switch (e.kind) {
      case EventKind::Start:
        out += "START ";
        out += kind_name(e.syntax);
        if (e.data) out += " (forward parent at event " + std::to_string(i + e.data) + ")";
        ++depth;
        break;
      case EventKind::Finish: out += "FINISH"; break;
      case EventKind::Token:
        out += "TOKEN ";
        out += kind_name(e.syntax);
        out += range_text(lexed.begin(e.data), lexed.end(e.data)) + " " + quote(lexed.text(e.data));
        break;
      case EventKind::Error: {
        const Diagnostic& d = po.diagnostics[e.data];
        out += "ERROR " + d.code + " " + quote(d.message);
        break;
      }
      case EventKind::Tombstone: out += "TOMBSTONE"; break;
    }
    out += '\n';
  }
  return out;
}

std::string dump_diagnostics(const std::vector<Diagnostic>& diags) {
  std::string out;
  for (const Diagnostic& d : diags) {
    const Label* l = d.primary_label();
    out += d.code;
    if (l) out += " " + std::to_string(l->span.begin) + ".." + std::to_string(l->span.end);
    out += ": " + d.message + "\n";
  }
  return out;
}

}  // namespace rung::syntax
