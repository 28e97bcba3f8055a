// The formatter's internals, shared by format.cpp (items, types, lists, the public entry
// points) and format_exprs.cpp (statements, blocks, expressions). Not a public header.
#pragma once

#include <vector>

#include "syntax/comments.h"
#include "syntax/doc.h"
#include "syntax/format.h"

namespace rung::syntax::fmt {

struct ListStyle {
  bool spaced = false;        // `{ a, b }` rather than `(a, b)` when on one line
  bool always_break = false;  // one element per line even when they would fit
  bool keep_single_comma = false;  // `(a,)`: a one-element tuple keeps its comma
};

class Formatter {
 public:
  explicit Formatter(SyntaxNode root) : root_(root), comments_(root), hoisted_(root.range().end + 1) {}
  DocId source_file();
  Docs& docs() { return d_; }

 private:
  // ---- tokens and comments (format.cpp) ----
  DocId tok(SyntaxToken t);                 // leading comments, text, trailing comments
  DocId tok(SyntaxNode n, SyntaxKind kind);  // the child token of `kind`, or nil
  DocId drop(SyntaxToken t);                // only the comments of a token left out
  DocId leading(SyntaxToken t);
  DocId trailing(SyntaxToken t);
  DocId comment(const Comment& c);
  // Prints the leading comments of `n`'s first token here, at the start of a line in a
  // sequence, instead of inside whatever group holds that token.
  DocId hoist(SyntaxNode n);
  bool blank_line_before(SyntaxNode n);
  DocId dangling(SyntaxToken close, bool after_content);  // comments before a closing delimiter
  DocId end_comments(bool after_content);                 // comments after the last token
  DocId close_token(SyntaxToken close);                   // the delimiter without them

  // ---- structure (format.cpp) ----
  DocId node(SyntaxNode n);
  DocId plain(SyntaxNode n);  // children in order, no spaces
  DocId list(SyntaxNode n, SyntaxKind open, SyntaxKind close, ListStyle style);
  DocId sequence(const std::vector<SyntaxNode>& items, bool top_level);
  DocId item(SyntaxNode n);
  DocId type(SyntaxNode n);

  bool has_comments(SyntaxToken t) const;

  // ---- statements and expressions (format_exprs.cpp) ----
  DocId stmt(SyntaxNode n);
  DocId expr(SyntaxNode n);
  DocId block(SyntaxNode n, bool may_flatten);
  DocId if_chain(SyntaxNode n, bool force_break);
  DocId bin_chain(SyntaxNode n);
  DocId postfix_chain(SyntaxNode n);

  SyntaxNode root_;
  CommentMap comments_;
  Docs d_;
  std::vector<bool> hoisted_;  // by token offset: its leading comments are already out
};

// Significant tokens and nodes directly under `n`, in order (trivia left out).
std::vector<SyntaxElement> significant_children(SyntaxNode n);
SyntaxToken first_significant_token(SyntaxNode n);

}  // namespace rung::syntax::fmt
