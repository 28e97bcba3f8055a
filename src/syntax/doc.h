// A pretty-printing document algebra (after Wadler's "prettier printer" and Prettier's
// doc builders), used by the formatter. A Doc describes text and the places where it may
// break; the printer picks, group by group, flat if the group fits the line, broken if not.
// Docs live in a flat arena (ids, not pointers) so building and freeing cost no recursion.
#pragma once

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace rung::syntax {

using DocId = std::uint32_t;

class Docs {
 public:
  enum class Kind : std::uint8_t {
    Nil,
    Text,            // literal text (the view must outlive the Docs)
    Line,            // a space when flat, a newline when broken
    SoftLine,        // nothing when flat, a newline when broken
    HardLine,        // always a newline; forces every enclosing group to break
    EnsureLineStart, // a newline unless the line is still empty (own-line comments)
    Concat,
    Indent,          // the child, with broken lines indented one more level
    Group,           // the child, flat if it fits, else broken
    IfBreak,         // one child when the enclosing group is broken, the other when flat
    LineSuffix,      // text held back until just before the next newline (trailing comments)
    BreakParent,     // forces every enclosing group to break
  };

  Docs();

  DocId nil() const { return 0; }
  DocId text(std::string_view s);
  DocId owned_text(std::string s);  // for text that is not a view into the tree
  DocId line() const { return 1; }
  DocId softline() const { return 2; }
  DocId hardline() const { return 3; }
  DocId ensure_line_start() const { return 4; }
  DocId break_parent() const { return 5; }
  DocId space() const { return 6; }
  DocId concat(std::initializer_list<DocId> parts);
  DocId concat(const std::vector<DocId>& parts);
  DocId indent(DocId d);
  DocId group(DocId d);
  DocId if_break(DocId broken, DocId flat);
  DocId line_suffix(DocId d);

  // True when the doc holds a hard line break (a group around it can never be flat).
  bool hard(DocId d) const { return nodes_[d].hard; }

  // Lays the doc out in `width` columns with `indent_width` spaces per level. Trailing
  // spaces are trimmed from every line.
  std::string print(DocId root, int width = 100, int indent_width = 4) const;

 private:
  struct Node {
    Kind kind;
    bool hard = false;
    std::uint32_t a = 0, b = 0;  // Text: index into texts_; Concat: range in kids_; others: child ids
  };
  DocId add(Node n);

  std::vector<Node> nodes_;
  std::vector<DocId> kids_;
  std::vector<std::string_view> texts_;
  std::deque<std::string> owned_;
};

}  // namespace rung::syntax
