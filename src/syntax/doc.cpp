#include "syntax/doc.h"

#include "base/check.h"

namespace rung::syntax {
namespace {

// Display width in columns: one per scalar value (continuation bytes do not count).
int columns(std::string_view s) {
  int n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

enum class Mode : std::uint8_t { Flat, Break };

}  // namespace

Docs::Docs() {
  // Fixed ids for the constant docs (see the accessors in doc.h).
  add({Kind::Nil});
  add({Kind::Line});
  add({Kind::SoftLine});
  add({Kind::HardLine, true});
  add({Kind::EnsureLineStart});
  add({Kind::BreakParent, true});
  text(" ");
}

DocId Docs::add(Node n) {
  nodes_.push_back(n);
  return static_cast<DocId>(nodes_.size() - 1);
}

DocId Docs::text(std::string_view s) {
  if (s.empty()) return nil();
  texts_.push_back(s);
  // Text with a newline in it (a multi-line block comment) cannot sit in a flat group.
  bool multi_line = s.find('\n') != std::string_view::npos;
  return add({Kind::Text, multi_line, static_cast<std::uint32_t>(texts_.size() - 1)});
}

DocId Docs::owned_text(std::string s) {
  owned_.push_back(std::move(s));
  return text(owned_.back());
}

DocId Docs::concat(std::initializer_list<DocId> parts) { return concat(std::vector<DocId>(parts)); }

DocId Docs::concat(const std::vector<DocId>& parts) {
  bool hard = false;
  auto first = static_cast<std::uint32_t>(kids_.size());
  for (DocId p : parts) {
    if (p == nil()) continue;
    kids_.push_back(p);
    hard = hard || nodes_[p].hard;
  }
  auto count = static_cast<std::uint32_t>(kids_.size()) - first;
  if (count == 0) return nil();
  if (count == 1) {
    DocId only = kids_.back();
    kids_.pop_back();
    return only;
  }
  return add({Kind::Concat, hard, first, count});
}

DocId Docs::indent(DocId d) { return d == nil() ? d : add({Kind::Indent, nodes_[d].hard, d}); }
DocId Docs::group(DocId d) { return d == nil() ? d : add({Kind::Group, nodes_[d].hard, d}); }
DocId Docs::if_break(DocId broken, DocId flat) { return add({Kind::IfBreak, nodes_[broken].hard && nodes_[flat].hard, broken, flat}); }
DocId Docs::line_suffix(DocId d) { return add({Kind::LineSuffix, false, d}); }

std::string Docs::print(DocId root, int width, int indent_width) const {
  struct Cmd {
    int indent;
    Mode mode;
    DocId doc;
  };

  // Whether `first` laid out flat, followed by what is still on the stack, reaches a line
  // break before running out of the `room` left on the line.
  auto fits = [&](DocId first, const std::vector<Cmd>& rest, int room) {
    std::vector<std::pair<Mode, DocId>> work{{Mode::Flat, first}};
    std::size_t rest_i = rest.size();
    while (room >= 0) {
      if (work.empty()) {
        if (rest_i == 0) return true;
        --rest_i;
        work.push_back({rest[rest_i].mode, rest[rest_i].doc});
        continue;
      }
      auto [mode, d] = work.back();
      work.pop_back();
      const Node& n = nodes_[d];
      switch (n.kind) {
        case Kind::Nil:
        case Kind::LineSuffix:
        case Kind::BreakParent: break;
        case Kind::Text:
          if (n.hard) return true;
          room -= columns(texts_[n.a]);
          break;
        case Kind::Concat:
          for (std::uint32_t i = n.b; i > 0; --i) work.push_back({mode, kids_[n.a + i - 1]});
          break;
        case Kind::Indent: work.push_back({mode, n.a}); break;
        case Kind::Group: work.push_back({n.hard ? Mode::Break : mode, n.a}); break;
        case Kind::IfBreak: work.push_back({mode, mode == Mode::Break ? n.a : n.b}); break;
        case Kind::Line:
          if (mode == Mode::Break) return true;
          room -= 1;
          break;
        case Kind::SoftLine:
          if (mode == Mode::Break) return true;
          break;
        case Kind::HardLine:
        case Kind::EnsureLineStart: return true;
      }
    }
    return false;
  };

  std::string out;
  int col = 0;
  bool line_empty = true;
  std::vector<Cmd> stack{{0, Mode::Break, root}};
  std::vector<Cmd> suffixes;
  auto trim = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
  };

  while (!stack.empty() || !suffixes.empty()) {
    if (stack.empty()) {  // the end: held-back trailing comments come out last
      for (auto it = suffixes.rbegin(); it != suffixes.rend(); ++it) stack.push_back(*it);
      suffixes.clear();
      continue;
    }
    Cmd c = stack.back();
    stack.pop_back();
    const Node& n = nodes_[c.doc];
    bool newline = false;
    switch (n.kind) {
      case Kind::Nil:
      case Kind::BreakParent: break;
      case Kind::Text: {
        std::string_view t = texts_[n.a];
        out += t;
        std::size_t nl = t.rfind('\n');
        col = nl == std::string_view::npos ? col + columns(t) : columns(t.substr(nl + 1));
        line_empty = false;
        break;
      }
      case Kind::Concat:
        for (std::uint32_t i = n.b; i > 0; --i) stack.push_back({c.indent, c.mode, kids_[n.a + i - 1]});
        break;
      case Kind::Indent: stack.push_back({c.indent + indent_width, c.mode, n.a}); break;
      case Kind::Group: {
        Mode m = c.mode == Mode::Flat || (!n.hard && fits(n.a, stack, width - col)) ? Mode::Flat : Mode::Break;
        stack.push_back({c.indent, m, n.a});
        break;
      }
      case Kind::IfBreak: stack.push_back({c.indent, c.mode, c.mode == Mode::Break ? n.a : n.b}); break;
      case Kind::LineSuffix: suffixes.push_back({c.indent, c.mode, n.a}); break;
      case Kind::Line:
        if (c.mode == Mode::Flat) {
          out += ' ';
          ++col;
        } else {
          newline = true;
        }
        break;
      case Kind::SoftLine: newline = c.mode == Mode::Break; break;
      case Kind::HardLine: newline = true; break;
      case Kind::EnsureLineStart: newline = !line_empty; break;
    }
    if (!newline) continue;
    if (!suffixes.empty()) {
      // Trailing comments go before the line ends: print them, then this break again.
      stack.push_back(c);
      for (auto it = suffixes.rbegin(); it != suffixes.rend(); ++it) stack.push_back(*it);
      suffixes.clear();
      continue;
    }
    trim();
    out += '\n';
    out.append(static_cast<std::size_t>(c.indent), ' ');
    col = c.indent;
    line_empty = true;
  }
  trim();
  return out;
}

}  // namespace rung::syntax
