// The typed AST view over the tree.
#include "syntax/ast.h"

#include <gtest/gtest.h>

#include "syntax/parse.h"

namespace rung::syntax::ast {
namespace {

std::string text(const AstNode& n) { return n ? n.syntax().text() : "<null>"; }

template <class T>
T find(SyntaxNode root) {
  Preorder walk(root);
  Preorder::Step s;
  while (walk.next(s))
    if (s.enter && s.element.is_node() && T::can_cast(s.element.kind())) return T::cast(s.element.node());
  return T();
}

TEST(Ast, ItemsOfAFile) {
  Parse p = parse(
      "module app.main;\nimport std.nn.{relu, softmax as sm};\noverride tier fast;\ntolerance tight;\n"
      "/// Weights.\nexport struct W[D] { a: f32[D, 4] @device, b: &mut i32 }\n"
      "/// Entry.\nexport fn run[B](x: f32[B], (a, _): (i64, f32)) -> f32 !{rand, io} { x }\n");
  ASSERT_TRUE(p.diagnostics.empty());
  SourceFile file = SourceFile::cast(p.tree.root());
  ASSERT_TRUE(file);
  EXPECT_EQ(file.items().size(), 6u);
  EXPECT_EQ(file.module_decl().path().text(), "app.main");

  Import imp = find<Import>(p.tree.root());
  auto names = imp.list().names();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].name_ref().text(), "relu");
  EXPECT_FALSE(names[0].rename());
  EXPECT_EQ(names[1].rename().name().text(), "sm");

  TierDecl tier = find<TierDecl>(p.tree.root());
  EXPECT_TRUE(tier.override_token());
  EXPECT_EQ(tier.name_ref().text(), "fast");
  EXPECT_FALSE(find<ToleranceDecl>(p.tree.root()).override_token());

  StructItem s = find<StructItem>(p.tree.root());
  EXPECT_TRUE(s.export_token());
  EXPECT_EQ(s.name().text(), "W");
  EXPECT_EQ(s.generic_params().params()[0].name().text(), "D");
  EXPECT_EQ(s.doc_comments(), std::vector<std::string_view>{"/// Weights."});
  auto fields = s.field_list().fields();
  ASSERT_EQ(fields.size(), 2u);
  NamedType a = NamedType::cast(fields[0].type().syntax());
  EXPECT_EQ(a.path().text(), "f32");
  EXPECT_EQ(a.shape().dims().size(), 2u);
  EXPECT_EQ(a.mem_space().name_ref().text(), "device");
  RefType b = RefType::cast(fields[1].type().syntax());
  EXPECT_TRUE(b.mut_token());
  EXPECT_EQ(text(b.pointee()), "i32");

  FnItem f = find<FnItem>(p.tree.root());
  EXPECT_EQ(f.name().text(), "run");
  EXPECT_EQ(f.doc_comments(), std::vector<std::string_view>{"/// Entry."});
  auto params = f.param_list().params();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(IdentPat::cast(params[0].pattern().syntax()).name().text(), "x");
  TuplePat tp = TuplePat::cast(params[1].pattern().syntax());
  ASSERT_EQ(tp.elements().size(), 2u);
  EXPECT_TRUE(WildcardPat::cast(tp.elements()[1].syntax()));
  EXPECT_EQ(TupleType::cast(params[1].type().syntax()).elements().size(), 2u);
  EXPECT_EQ(text(f.ret_type().type()), "f32");
  auto effects = f.effects().effects();
  ASSERT_EQ(effects.size(), 2u);
  EXPECT_EQ(effects[1].name_ref().text(), "io");
  EXPECT_EQ(text(f.body().tail()), "x");
  EXPECT_TRUE(f.body().statements().empty());
}

TEST(Ast, ExpressionsAndStatements) {
  Parse p = parse(
      "fn f() {\n"
      "    let (mut a, b): (i64, i64) = (1, 2);\n"
      "    a += b;\n"
      "    let y = x @ w + b;\n"
      "    let z = if c { 1 } else if d { 2 } else { 3 };\n"
      "    for i in 0..n { }\n"
      "    opt.step(&mut p, lr: 0.1);\n"
      "    let s = t[1:, ::2, i];\n"
      "    let q = P { a, b: 2 };\n"
      "    -t.0\n"
      "}\n");
  ASSERT_TRUE(p.diagnostics.empty());
  BlockExpr body = find<FnItem>(p.tree.root()).body();
  auto stmts = body.statements();
  ASSERT_EQ(stmts.size(), 8u);

  LetStmt let = LetStmt::cast(stmts[0].syntax());
  TuplePat pat = TuplePat::cast(let.pattern().syntax());
  EXPECT_TRUE(IdentPat::cast(pat.elements()[0].syntax()).mut_token());
  EXPECT_EQ(text(let.type()), "(i64, i64)");
  EXPECT_EQ(TupleExpr::cast(let.init().syntax()).elements().size(), 2u);

  AssignExpr assign = AssignExpr::cast(ExprStmt::cast(stmts[1].syntax()).expr().syntax());
  EXPECT_EQ(assign.op_token().text(), "+=");
  EXPECT_EQ(text(assign.target()), "a");

  BinExpr sum = BinExpr::cast(LetStmt::cast(stmts[2].syntax()).init().syntax());
  EXPECT_EQ(sum.op_token().text(), "+");
  EXPECT_EQ(text(sum.lhs()), "x @ w");
  EXPECT_EQ(BinExpr::cast(sum.lhs().syntax()).op_token().kind(), SyntaxKind::AT);

  IfExpr ife = IfExpr::cast(LetStmt::cast(stmts[3].syntax()).init().syntax());
  EXPECT_EQ(text(ife.condition()), "c");
  EXPECT_EQ(text(ife.then_branch()), "{ 1 }");
  IfExpr elif = IfExpr::cast(ife.else_branch().syntax());
  ASSERT_TRUE(elif);
  EXPECT_EQ(text(elif.else_branch()), "{ 3 }");

  ForExpr loop = ForExpr::cast(ExprStmt::cast(stmts[4].syntax()).expr().syntax());
  RangeExpr range = RangeExpr::cast(loop.iterable().syntax());
  EXPECT_EQ(text(range.start()), "0");
  EXPECT_EQ(text(range.end()), "n");
  EXPECT_TRUE(loop.body());

  MethodCallExpr call = MethodCallExpr::cast(ExprStmt::cast(stmts[5].syntax()).expr().syntax());
  EXPECT_EQ(call.method().text(), "step");
  EXPECT_EQ(text(call.receiver()), "opt");
  ASSERT_EQ(call.arg_list().positional().size(), 1u);
  EXPECT_TRUE(RefExpr::cast(call.arg_list().positional()[0].syntax()).mut_token());
  ASSERT_EQ(call.arg_list().named().size(), 1u);
  EXPECT_EQ(call.arg_list().named()[0].name().text(), "lr");

  IndexExpr idx = IndexExpr::cast(LetStmt::cast(stmts[6].syntax()).init().syntax());
  auto items = idx.index_list().items();
  ASSERT_EQ(items.size(), 3u);
  Slice s0 = Slice::cast(items[0]), s1 = Slice::cast(items[1]);
  EXPECT_EQ(text(s0.start()), "1");
  EXPECT_FALSE(s0.stop());
  EXPECT_FALSE(s1.start());
  EXPECT_FALSE(s1.stop());
  EXPECT_EQ(text(s1.step()), "2");
  EXPECT_TRUE(PathExpr::cast(items[2]));

  StructLit lit = StructLit::cast(LetStmt::cast(stmts[7].syntax()).init().syntax());
  auto lf = lit.fields().fields();
  ASSERT_EQ(lf.size(), 2u);
  EXPECT_FALSE(lf[0].value()) << "shorthand";
  EXPECT_EQ(text(lf[1].value()), "2");

  PrefixExpr neg = PrefixExpr::cast(body.tail().syntax());
  EXPECT_EQ(neg.op_token().text(), "-");
  FieldExpr field = FieldExpr::cast(neg.operand().syntax());
  EXPECT_EQ(field.tuple_index().text(), "0");
}

TEST(Ast, MissingPartsAreNullViewsNotCrashes) {
  Parse p = parse("fn (x: ) -> { let = ; }");
  EXPECT_FALSE(p.diagnostics.empty());
  FnItem f = find<FnItem>(p.tree.root());
  ASSERT_TRUE(f);
  EXPECT_FALSE(f.name());
  EXPECT_FALSE(f.param_list().params()[0].type());
  EXPECT_FALSE(f.ret_type().type());
  LetStmt let = LetStmt::cast(f.body().statements()[0].syntax());
  EXPECT_FALSE(let.pattern());
  EXPECT_FALSE(let.init());
  EXPECT_FALSE(Name::cast(SyntaxNode()));
  EXPECT_FALSE(BinExpr::cast(f.syntax()));
}

}  // namespace
}  // namespace rung::syntax::ast
