// Internal: the one walk that checks and lowers a source file (frontend.h is the API).
// Split by job: lower_items.cpp (structs, signatures, functions), lower_expr.cpp
// (expressions into GraphIR nodes), lower_calls.cpp (calls: the op prelude, user
// functions, value_and_grad), lower_stmt.cpp (BlockIR statements).
//
// Two lowering modes share the expression code. A pure function is lowered to a GraphIR
// region: its variables are bound to GraphIR values. A function with effects or control
// flow is lowered to a BlockIR function: its variables are bound to slots, and each
// numeric statement is evaluated into a fresh region whose params are the slots it reads
// (created on first read) and emitted as a `compute` statement.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "frontend/types.h"
#include "ir/block/block.h"
#include "ir/graph/builder.h"
#include "ops/op_def.h"
#include "syntax/ast.h"

namespace rung::frontend {

namespace ast = syntax::ast;

// An evaluated expression.
struct Value {
  Ty ty;
  std::vector<ValueRef> refs;  // the tensor leaves
  bool weak = false;           // an untyped numeric literal (takes the other operand's dtype)
  bool weak_float = false;
  double number = 0;
  std::string text;            // a string literal's value
  Span span;
  bool ok() const { return !ty.has_error(); }
};

struct Binding {
  Ty ty;
  std::vector<ValueRef> refs;        // pure mode
  std::vector<block::SlotId> slots;  // block mode
  bool in_slots = false;
  bool is_mut = false;
  Span span;
};

struct StructInfo {
  ast::StructItem item;
  Ty ty;  // kind structure (error while being resolved)
};

struct FnInfo {
  ast::FnItem item;
  std::string name;
  std::vector<std::string> param_names;
  std::vector<Ty> params;
  std::vector<Span> param_spans;
  Ty ret = Ty::unit();
  Span ret_span;
  std::set<std::string> effects;
  bool block_mode = false;  // lowered to BlockIR (effects or control flow)
  bool signature_ok = true;
  std::optional<RegionId> region;  // pure functions, once lowered
  int state = 0;                   // pure functions: 0 not lowered yet, 1 in progress, 2 done
};

class Lowerer {
 public:
  Lowerer(const ast::SourceFile& file, SourceId src, DiagnosticSink& d) : file_(file), src_(src), d_(d), b_(prog_.graph) {}
  std::optional<block::Program> run();

 private:
  // ---- items (lower_items.cpp) ----
  void collect_items();
  Ty resolve_type(const ast::Type& t);
  void resolve_signature(FnInfo& f);
  void lower_pure_function(FnInfo& f);
  void lower_block_function(FnInfo& f);
  void wrap_pure_function(FnInfo& f);
  static bool needs_block(const ast::FnItem& fn);

  // ---- expressions (lower_expr.cpp) ----
  Value expr(const ast::Expr& e);
  Value literal(const ast::Literal& lit);
  Value path(const ast::PathExpr& p);
  Value binary(const ast::BinExpr& e);
  Value prefix(const ast::PrefixExpr& e);
  Value field(const ast::FieldExpr& e);
  Value index(const ast::IndexExpr& e);
  Value struct_lit(const ast::StructLit& e);
  Value tuple(const ast::TupleExpr& e);
  Value tensor_lit(const ast::TensorExpr& e);
  Value block_value(const ast::BlockExpr& e);
  void pure_stmt(const ast::Stmt& s);
  // Applies a registry op: types checked by ops::infer_types; errors underline every operand.
  Value apply_op(const ops::OpDef& op, std::vector<Value> args, const AttrMap& attrs, Span at, Span op_span);
  Value materialize(Value v, DType dt);  // weak literal -> constant
  Value constant_scalar(DType dt, double v, Span at);

  // ---- calls (lower_calls.cpp) ----
  Value call(const ast::CallExpr& e);
  Value call_user(FnInfo& f, std::vector<Value> args, Span at, Span callee_span);
  Value value_and_grad(const ast::CallExpr& outer, const ast::CallExpr& inner);
  bool unify(const Ty& declared, const Ty& actual, DimMap& m, Span at, const std::string& what,
             std::map<std::string, Span>& first_seen);
  bool need_effect(const std::string& effect, Span at, const std::string& why);
  // Lowers a pure function now if it has not been (callers may come first).
  bool ensure_lowered(FnInfo& f, Span at);
  // Evaluates f's body with its parameters bound to `args` (inlining).
  Value inline_body(FnInfo& f, const std::vector<Value>& args, Span at);
  Span unify_param_span_;

  // ---- statements (lower_stmt.cpp) ----
  void block_stmts(const ast::BlockExpr& body, std::vector<block::Stmt>& out, bool fn_body);
  void block_stmt(const ast::Stmt& s, std::vector<block::Stmt>& out);
  void block_expr_stmt(const ast::Expr& e, std::vector<block::Stmt>& out);
  void let_stmt(const ast::LetStmt& s, std::vector<block::Stmt>& out);
  void assign(const ast::AssignExpr& e, std::vector<block::Stmt>& out);
  void for_loop(const ast::ForExpr& e, std::vector<block::Stmt>& out);
  void while_loop(const ast::WhileExpr& e, std::vector<block::Stmt>& out);
  void if_stmt(const ast::IfExpr& e, std::vector<block::Stmt>& out);
  void print_stmt(const ast::CallExpr& e, std::vector<block::Stmt>& out);
  // Evaluates into slots through a compute statement over the slots it reads. `into`:
  // existing slots to write (assignment); else fresh slots named `hint`. A plain variable
  // is returned as is unless `fresh`.
  using Slots = std::optional<std::pair<Ty, std::vector<block::SlotId>>>;
  Slots to_slots(const ast::Expr& e, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into = nullptr,
                 bool fresh = false, const std::string& hint = "", bool is_mut = false);
  Slots compute(const std::function<Value()>& eval, Span at, std::vector<block::Stmt>& out,
                const std::vector<block::SlotId>* into, const std::string& hint, bool is_mut);
  // A user function lowered to BlockIR, called as a statement: `let r = f(...)` or `f(...);`.
  std::optional<std::pair<Ty, std::vector<block::SlotId>>> call_stmt(const ast::CallExpr& e, FnInfo& f,
                                                                     std::vector<block::Stmt>& out);
  std::optional<std::pair<Ty, std::vector<block::SlotId>>> read_csv(const ast::CallExpr& e, const ast::Type& annotation,
                                                                    std::vector<block::Stmt>& out);
  std::vector<block::SlotId> new_slots(const Ty& t, const std::string& name, bool is_mut);
  void bind_pattern(const ast::Pattern& p, const Ty& t, const std::vector<block::SlotId>& slots,
                    const std::vector<ValueRef>& refs, bool in_slots, Span at);

  // ---- helpers (lowerer.cpp) ----
  Span span(const ast::AstNode& n) const { return n ? Span{src_, n.range().begin, n.range().end} : Span{src_, 0, 0}; }
  Span span(syntax::SyntaxToken t) const { return t ? Span{src_, t.range().begin, t.range().end} : Span{src_, 0, 0}; }
  Binding* lookup(std::string_view name);
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  void bind(const std::string& name, Binding b) { scopes_.back()[name] = std::move(b); }
  // Block mode: the GraphIR param standing for a slot in the region being built.
  ValueRef slot_param(block::SlotId s);
  Value error_value(Span at) { Value v; v.span = at; return v; }
  FnInfo* find_fn(std::string_view name);
  std::string closest_name(std::string_view name) const;

  const ast::SourceFile& file_;
  SourceId src_;
  DiagnosticSink& d_;
  block::Program prog_;
  GraphBuilder b_;
  std::map<std::string, StructInfo, std::less<>> structs_;
  std::map<std::string, FnInfo, std::less<>> fns_;
  std::vector<std::string> fn_order_;

  // The function being lowered and its state.
  FnInfo* current_ = nullptr;
  block::Function* block_fn_ = nullptr;
  std::vector<std::map<std::string, Binding, std::less<>>> scopes_;
  // Region under construction in block mode: slot -> param.
  std::map<block::SlotId, ValueRef> region_params_;
  std::vector<block::SlotId> region_param_slots_;
  int inline_depth_ = 0;
  int temp_counter_ = 0;
  int region_counter_ = 0;
};

// Named arguments -> attributes of `op` (attrs_from_ast.cpp). Reports E2007/E2008.
std::optional<AttrMap> attrs_from_args(const ops::OpDef& op, const std::vector<ast::NamedArg>& named, SourceId src,
                                       DiagnosticSink& d);

}  // namespace rung::frontend
