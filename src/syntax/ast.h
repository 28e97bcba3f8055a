// The typed AST: thin views over red nodes (ast.def lists them and their accessors). A view
// is a SyntaxNode that has been checked to be of the right kind; accessors find children
// by kind and return null views when a child is missing, as it may be in trees with
// syntax errors. Nothing is copied: the tree stays the single source of truth.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "syntax/tree.h"

namespace rung::syntax::ast {

class AstNode {
 public:
  AstNode() = default;
  SyntaxNode syntax() const { return n_; }
  explicit operator bool() const { return static_cast<bool>(n_); }
  SyntaxKind kind() const { return n_.kind(); }
  TextRange range() const { return n_.range(); }

 protected:
  explicit AstNode(SyntaxNode n) : n_(n) {}
  SyntaxNode n_;
};

// Views a node as `T`, or a null `T` when it is of another kind.
template <class T>
T cast(SyntaxNode n) {
  return T::cast(n);
}

#define RUNG_AST_NODE(cls, kind) class cls;
#define RUNG_AST_UNION(cls, ...) class cls;
#define RUNG_AST_END(cls)
#include "syntax/ast.def"

#define RUNG_AST_NODE(cls, node_kind)                                                  \
  class cls : public AstNode {                                                         \
   public:                                                                             \
    cls() = default;                                                                   \
    static bool can_cast(SyntaxKind k) { return k == SyntaxKind::node_kind; }          \
    static cls cast(SyntaxNode n) { return n && can_cast(n.kind()) ? cls(n) : cls(); } \
                                                                                       \
   private:                                                                            \
    explicit cls(SyntaxNode n) : AstNode(n) {}                                         \
                                                                                       \
   public:
#define RUNG_AST_UNION(cls, ...)                                                       \
  class cls : public AstNode {                                                         \
   public:                                                                             \
    cls() = default;                                                                   \
    static bool can_cast(SyntaxKind k) {                                               \
      using enum SyntaxKind;                                                           \
      constexpr SyntaxKind kinds[] = {__VA_ARGS__};                                    \
      for (SyntaxKind x : kinds)                                                       \
        if (x == k) return true;                                                       \
      return false;                                                                    \
    }                                                                                  \
    static cls cast(SyntaxNode n) { return n && can_cast(n.kind()) ? cls(n) : cls(); } \
                                                                                       \
   private:                                                                            \
    explicit cls(SyntaxNode n) : AstNode(n) {}                                         \
                                                                                       \
   public:
#define RUNG_AST_CHILD(cls, type, name) type name() const;
#define RUNG_AST_CHILDREN(cls, type, name) std::vector<type> name() const;
#define RUNG_AST_NTH(cls, type, name, n) type name() const;
#define RUNG_AST_TOKEN(cls, token_kind, name) SyntaxToken name() const;
#define RUNG_AST_CUSTOM(cls, decl) decl;
#define RUNG_AST_END(cls) \
  }                       \
  ;
#include "syntax/ast.def"

}  // namespace rung::syntax::ast
