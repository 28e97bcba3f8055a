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
#include "frontend/weak_literal.h"
#include "ir/block/block.h"
#include "ir/graph/builder.h"
#include "ops/op_def.h"
#include "syntax/ast.h"
#include "syntax/tree.h"
#include <memory>

namespace rung::frontend {

namespace ast = syntax::ast;

// Ownership: a binding owns its value or borrows one (`&`, `&mut`); see ownership.cpp.
enum class RefKind : std::uint8_t { owned, shared, mut };

// An evaluated expression.
struct Value {
  Ty ty;
  std::vector<ValueRef> refs;  // the tensor leaves
  // An untyped number literal (weak_literal.h): it takes the dtype of where it is used.
  bool weak = false;
  bool weak_float = false;     // it has a float leaf: it cannot become an integer
  std::shared_ptr<const WeakLit> lit;  // set when weak; `ty` then holds its default type
  std::string text;            // a string literal's value
  Span span;
  RefKind borrow = RefKind::owned;  // `&x` / `&mut x`
  bool constant = false;  // computed from literals and attributes alone: placed in whatever space it is used in
  bool ok() const { return !ty.has_error(); }
  // The exact value of an integer literal scalar (`3`, `-2`, `N - 1`) computed in i64;
  // nullopt for anything else or one out of the range of i64.
  std::optional<std::int64_t> integer() const { return lit ? weak_i64(*lit) : std::nullopt; }
};

struct Binding {
  Ty ty;
  std::vector<ValueRef> refs;        // pure mode
  std::vector<block::SlotId> slots;  // block mode
  bool in_slots = false;
  bool is_mut = false;
  Span span;
  RefKind ref = RefKind::owned;
  bool constant = false;  // pure mode: bound to a constant (literals only), which adapts its memory space
  int id = 0;                                         // unique per binding (loans name their target by it)
  std::vector<std::pair<std::string, Span>> moved;  // moved paths ("" the whole value, ".w1" a field) and where
};

// A place: a variable or a field path into one (`p`, `p.w1`, `t.0`).
struct Place {
  Binding* b = nullptr;
  std::string name;  // the variable
  std::string path;  // "" or ".w1.x"
  Span span;
};

// A live borrow of a place: held by a variable until the end of its block, or by a call
// while its arguments are evaluated (holder 0).
struct Loan {
  int target = 0;
  std::string target_name;
  std::string path;
  bool mut = false;
  Span at;
  std::size_t depth = 0;  // the holder's scope depth
  int holder = 0;
};

enum class Access : std::uint8_t { read, move, write, borrow, borrow_mut };

struct Module;
struct FnInfo;

struct StructInfo {
  ast::StructItem item;
  Ty ty;  // kind structure (error while being resolved); generic dims stay symbols
  Module* mod = nullptr;
  std::vector<std::string> generics;  // `struct Head[D, H]`
  std::vector<Span> field_spans;
};

// A source file of the program: the main one or one it imports (modules.cpp).
struct Module {
  std::string prefix;  // qualifies its items' names: "" for the main file, "layers." for an import
  SourceId src;
  ast::SourceFile file;
  std::string dir;  // imports resolve from here
  std::map<std::string, std::string, std::less<>> fns, structs;  // names visible here -> keys of fns_/structs_
  std::map<std::string, std::string, std::less<>> op_aliases;   // `import std.nn.{layer_norm as ln}`
  std::map<std::string, Module*, std::less<>> imports;          // `import lib.layers;` -> `layers.f(...)`
  std::map<std::string, std::string, std::less<>> std_imports;  // `import std.io;` -> io -> "io"
  int state = 0;  // loading: 1 in progress (a cycle when seen again), 2 done
  Span loading_import;  // the import being followed while state == 1
};

// A call resolved: what `f(...)` or `module.f(...)` names.
struct CallSite {
  enum class Kind : std::uint8_t { user, op, builtin } kind = Kind::op;
  std::string name;  // the builtin's or op's name, or the function's qualified name
  FnInfo* fn = nullptr;
  const ops::OpDef* op = nullptr;
  ast::ArgList args;
  Span at, callee;
};

// The `@grad NAME` directive in a function's doc comment, if any (custom ops).
std::optional<std::string> custom_grad_directive(const ast::FnItem& item);

struct FnInfo {
  ast::FnItem item;
  Module* mod = nullptr;
  std::vector<std::string> generics;  // `fn f[B, T]`
  bool is_template = false;           // uses a generic dim as a value: checked per call, no region of its own
  std::string name;
  std::vector<std::string> param_names;
  std::vector<Ty> params;
  std::vector<Span> param_spans;
  std::vector<RefKind> param_refs;
  Ty ret = Ty::unit();
  Span ret_span;
  std::set<std::string> effects;
  std::string tier;  // declared inside the body (`override tier fast;`); empty: the module's
  bool block_mode = false;  // lowered to BlockIR (effects or control flow)
  bool signature_ok = true;
  std::optional<RegionId> region;  // pure functions, once lowered
  int state = 0;                   // pure functions: 0 not lowered yet, 1 in progress, 2 done
};

class Lowerer {
 public:
  Lowerer(const ast::SourceFile& file, SourceId src, SourceMap& sources, DiagnosticSink& d)
      : file_(file), src_(src), sources_(sources), d_(d), b_(prog_.graph) {}
  std::optional<block::Program> run();

 private:
  // ---- modules (modules.cpp) ----
  void load_modules();
  Module* load_module(const std::string& path, Span import_span, const std::string& prefix);
  void declare_items(Module& m);
  void resolve_imports(Module& m);
  // Switches the walk into module m (spans, names); returns the previous module.
  Module* enter(Module* m);
  Span span_in(const Module* m, const ast::AstNode& n) const;
  StructInfo* find_struct(std::string_view name);
  // Resolves what a call expression names (CALL_EXPR `f(..)`, METHOD_CALL_EXPR `mod.f(..)`);
  // nullopt after a diagnostic, or (quietly) when `quiet` and it is not a call of a name.
  std::optional<CallSite> call_site(const ast::Expr& e, bool quiet);
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<syntax::SyntaxTree> trees_;  // of imported files
  Module* mod_ = nullptr;
  std::map<std::string, Module*> modules_by_path_;

  // ---- generics ----
  DimMap dim_env_;  // while inlining: the callee's generic dims bound at the call
  const std::vector<std::string>* dim_scope_ = nullptr;  // generic dims a type may name (null: any)

  // ---- items (lower_items.cpp) ----
  void collect_items();
  Ty resolve_type(const ast::Type& t);
  void resolve_signature(FnInfo& f);
  void lower_pure_function(FnInfo& f);
  void lower_block_function(FnInfo& f);
  void wrap_pure_function(FnInfo& f);
  static bool needs_block(const ast::FnItem& fn);
  bool uses_dims_as_values(const FnInfo& f) const;

  // ---- expressions (lower_expr.cpp) ----
  Value expr(const ast::Expr& e);
  Value literal(const ast::Literal& lit);
  Value path(const ast::PathExpr& p);
  Value binary(const ast::BinExpr& e);
  Value binary_step(const ast::BinExpr& e, Value lhs);  // one operator of a chain, its lhs evaluated
  Value prefix(const ast::PrefixExpr& e);
  Value field(const ast::FieldExpr& e);
  Value index(const ast::IndexExpr& e);  // lower_index.cpp
  Value python_position(const Value& i, std::int64_t n);  // i + n for -n <= i < 0
  Value struct_lit(const ast::StructLit& e);
  Value tuple(const ast::TupleExpr& e);
  Value tensor_lit(const ast::TensorExpr& e);
  Value block_value(const ast::BlockExpr& e, bool fn_body = false);
  void pure_stmt(const ast::Stmt& s);
  // Applies a registry op: types checked by ops::infer_types; errors underline every operand.
  Value apply_op(const ops::OpDef& op, std::vector<Value> args, const AttrMap& attrs, Span at, Span op_span);
  // A weak literal computed in dt (E2121/E2122 when it does not fit) -> a constant node.
  Value materialize(Value v, DType dt, MemSpace space = MemSpace::host);
  Value materialize_default(Value v) { return v.weak ? materialize(v, default_literal_dtype(*v.lit)) : v; }
  Value weak_value(std::shared_ptr<const WeakLit> lit, Span at);
  Value constant_bool(bool b, Span at);
  Value too_deep_literal(Span op);  // E2090: deeper than kMaxWeakDepth

  // ---- calls (lower_calls.cpp) ----
  Value call(const ast::Expr& e);  // CALL_EXPR or METHOD_CALL_EXPR (`module.f(...)`)
  // `zeros(shape)`, `ones(shape)`, `full(shape, value)`, each with `dtype:` (lower_constructors.cpp).
  static bool is_constructor(std::string_view name);
  Value constructor(const CallSite& site, const std::vector<ast::Expr>& positional, const std::vector<ast::NamedArg>& named);
  Value call_user(FnInfo& f, std::vector<Value> args, Span at, Span callee_span);
  // A call of a custom op (a function with an `@grad NAME` doc directive): lower_custom_ops.cpp.
  Value call_custom_op(FnInfo& f, const std::string& grad_name, const std::vector<Value>& args, Span at);
  std::set<std::pair<Hash256, Hash256>> verified_;  // custom op gradients already gradchecked
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
  // `if` as a value (lower_if_value.cpp): an if_else statement whose branches each end by
  // writing their tail value into the same slots. `into`: those slots when the caller has
  // them (else the then-branch's value makes them); `want`: the type the context declares
  // (a weak literal in a branch takes its element type).
  using SlotsRef = std::optional<std::pair<Ty, std::vector<block::SlotId>>>;
  SlotsRef if_value(const ast::IfExpr& e, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into,
                    const Ty* want, const std::string& hint, bool is_mut);
  SlotsRef branch_value(const ast::BlockExpr& b, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into,
                        const std::string& hint, bool is_mut, Span& tail_span);
  void loop_jump(const ast::Expr& e, std::vector<block::Stmt>& out);  // `break` / `continue`
  int loop_depth_ = 0;  // loops around the statement being lowered (break/continue need one)
  void print_stmt(const CallSite& cs, std::vector<block::Stmt>& out);
  // `ret` of the block function, after the `&mut` params' write-back.
  void emit_return(std::vector<block::Stmt>& out, Span at);
  // Evaluates into slots through a compute statement over the slots it reads. `into`:
  // existing slots to write (assignment); else fresh slots named `hint`. A plain variable
  // is returned as is unless `fresh`.
  using Slots = std::optional<std::pair<Ty, std::vector<block::SlotId>>>;
  // `want`: the type the context declares (a `let` annotation, the assigned variable's), which
  // a literal takes.
  Slots to_slots(const ast::Expr& e, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into = nullptr,
                 bool fresh = false, const std::string& hint = "", bool is_mut = false, const Ty* want = nullptr);
  Slots compute(const std::function<Value()>& eval, Span at, std::vector<block::Stmt>& out,
                const std::vector<block::SlotId>* into, const std::string& hint, bool is_mut, const Ty* want = nullptr);
  // A user function lowered to BlockIR, called as a statement: `let r = f(...)` or `f(...);`.
  std::optional<std::pair<Ty, std::vector<block::SlotId>>> call_stmt(const CallSite& site, FnInfo& f,
                                                                     std::vector<block::Stmt>& out);
  std::optional<std::pair<Ty, std::vector<block::SlotId>>> read_csv(const CallSite& cs, const ast::Type& annotation,
                                                                    std::vector<block::Stmt>& out);
  Slots place_slots(const Place& pl);
  std::vector<block::SlotId> new_slots(const Ty& t, const std::string& name, bool is_mut);
  void bind_pattern(const ast::Pattern& p, const Ty& t, const std::vector<block::SlotId>& slots,
                    const std::vector<ValueRef>& refs, bool in_slots, Span at);

  // ---- ownership and memory spaces (ownership.cpp) ----
  std::optional<Place> place_of(const ast::Expr& e);
  // `let x = &p`, `let x = &mut p` and `let y = r` (r a borrow) bind a borrow.
  bool is_borrow_init(const ast::Expr& init);
  int place_checked_ = 0;  // >0 while the place being evaluated was checked as a whole
  // Checks one access to a place against moves, live loans and mutability; a move is
  // recorded, a write re-initialises. Reports E25xx and returns false on a conflict.
  bool check_access(const Place& p, Access a, Span at);
  bool checking() const { return inline_depth_ == 0; }
  // An expression where an owned value is required (`let`, struct field, tuple element):
  // a place is moved out, a borrow is an error.
  Value owned_value(const ast::Expr& e, const std::string& what);
  // After an argument was evaluated: its reference kind against the parameter's, the move
  // or the call's temporary loan. Returns false after a diagnostic.
  bool commit_arg(const ast::Expr& arg, const Value& v, RefKind want, Span param_span, const std::string& what);
  // `let x = &p` / `let y = r`: the new binding `name` borrows; records its loans.
  void bind_borrow(const ast::Expr& init, const std::string& name);
  void add_loan(const Place& p, bool mut, Span at, int holder);
  void pop_loans(std::size_t n) { if (loans_.size() > n) loans_.resize(n); }
  using MoveState = std::map<int, std::vector<std::pair<std::string, Span>>>;
  MoveState move_state();
  void restore_moves(const MoveState& s);
  void merge_moves(const MoveState& other);
  // After a loop body: an outer value moved in the body (and not assigned again) is E2502.
  void check_loop_moves(const MoveState& before, Span loop);
  // Memory spaces: operands of one op must share a space (E2511).
  bool same_space(const std::vector<Value>& args, Span op_span);
  static bool is_transfer(std::string_view name);
  Slots transfer(const CallSite& c, std::vector<block::Stmt>& out, const std::string& hint);
  // E2512 when two types differ only in their memory space (else false: not reported).
  bool space_mismatch(const Ty& want, const Ty& got, Span at, Span decl, const std::string& what);

  // ---- the walk's depth ----
  // Every recursion of the walk (an expression in an expression, a block in a block, an
  // `else if` arm, a call being inlined or lowered first) passes through one Nest. Past
  // kMaxNesting levels it reports E2404 and the construct lowers to an error, so no input
  // can overflow the stack here or make BlockIR as deep as the input is long.
  static constexpr int kMaxNesting = 256;
  int nesting_ = 0;
  class Nest {
   public:
    Nest(Lowerer& l, Span at);
    ~Nest() { --l_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    bool ok() const { return ok_; }

   private:
    Lowerer& l_;
    bool ok_;
  };

  // ---- helpers (lowerer.cpp) ----
  Span span(const ast::AstNode& n) const { return n ? Span{src_, n.range().begin, n.range().end} : Span{src_, 0, 0}; }
  Span span(syntax::SyntaxToken t) const { return t ? Span{src_, t.range().begin, t.range().end} : Span{src_, 0, 0}; }
  Binding* lookup(std::string_view name);
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope();
  void bind(const std::string& name, Binding b) {
    b.id = next_binding_id_++;
    scopes_.back()[name] = std::move(b);
  }
  // Block mode: the GraphIR param standing for a slot in the region being built.
  ValueRef slot_param(block::SlotId s);
  Value error_value(Span at) { Value v; v.span = at; return v; }
  FnInfo* find_fn(std::string_view name);
  std::string closest_name(std::string_view name) const;

  const ast::SourceFile& file_;
  SourceId src_;
  SourceMap& sources_;
  DiagnosticSink& d_;
  block::Program prog_;
  GraphBuilder b_;
  std::map<std::string, StructInfo, std::less<>> structs_;
  std::map<std::string, FnInfo, std::less<>> fns_;
  std::vector<std::string> fn_order_;
  std::vector<std::string> struct_order_;

  // The function being lowered and its state.
  FnInfo* current_ = nullptr;
  block::Function* block_fn_ = nullptr;
  std::vector<std::map<std::string, Binding, std::less<>>> scopes_;
  // Region under construction in block mode: slot -> param.
  std::map<block::SlotId, ValueRef> region_params_;
  std::vector<block::SlotId> region_param_slots_;
  std::vector<Loan> loans_;
  // The block function being lowered: its `&mut` params' slots and the result slots their
  // final values are returned in (emit_return copies them).
  std::vector<std::pair<std::vector<block::SlotId>, std::vector<block::SlotId>>> writeback_;
  int next_binding_id_ = 1;
  int inline_depth_ = 0;
  static constexpr std::size_t kInlineBudget = 20000;
  std::size_t inlined_calls_ = 0;
  int temp_counter_ = 0;
  int region_counter_ = 0;
};

// One literal as an attribute value of `kind` (attrs_from_ast.cpp): E2008 when it is not one
// (`what` names the place, `want` the kind expected), E2121 for an integer out of i64 (out of
// 64 bits when `raw_bits`: a seed, stored as its two's complement).
std::optional<AttrValue> attr_from_ast(AttrKind kind, const ast::Expr& e, const std::string& what, const std::string& want,
                                       SourceId src, DiagnosticSink& d, bool raw_bits = false);
// Named arguments -> attributes of `op` (attrs_from_ast.cpp). Reports E2007/E2008/E2121.
std::optional<AttrMap> attrs_from_args(const ops::OpDef& op, const std::vector<ast::NamedArg>& named, SourceId src,
                                       DiagnosticSink& d);

}  // namespace rung::frontend
