// The registry itself: lookups, declarations, kernel tables, type inference with symbolic
// dims, and the validator hook.
#include <gtest/gtest.h>

#include <set>

#include "ir/graph/builder.h"
#include "ir/graph/samples.h"
#include "ir/graph/validator.h"
#include "ops/registry.h"
#include "ops/signatures.h"
#include "ops/typing.h"

namespace rung::ops {
namespace {

TEST(Registry, NamesAndIdsAreUniqueAndFindable) {
  const OpRegistry& r = op_registry();
  std::set<std::uint16_t> ids;
  std::set<std::string> names;
  for (const OpDef* d : r.all()) {
    EXPECT_TRUE(ids.insert(d->id.value).second) << d->name;
    EXPECT_TRUE(names.insert(d->name).second) << d->name;
    EXPECT_EQ(r.find(d->name), d);
    EXPECT_EQ(r.find(d->id), d);
    EXPECT_FALSE(d->family.empty()) << d->name;
  }
  for (const char* op : {"add", "exp", "sum", "matmul"}) EXPECT_NE(r.find(op), nullptr) << op;
  EXPECT_EQ(r.find("no_such_op"), nullptr);
}

TEST(Registry, SignatureStringNamesTypesAndAttributes) {
  const OpDef* add = op_registry().find("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->signature().substr(0, 28), "add(a: T, b: T) -> y: T wher");
  const OpDef* mm = op_registry().find("matmul");
  EXPECT_NE(mm->signature().find("transpose_a: bool = false"), std::string::npos) << mm->signature();
}

TEST(Registry, EveryOpHasAReferenceKernelAndOthersAreMissing) {
  OpRegistry r;
  register_builtin_families(r);
  EXPECT_TRUE(r.missing_kernels(Backend::reference).empty());
  EXPECT_EQ(r.missing_kernels(Backend::cuda).size(), r.size());
  const OpDef* add = r.find("add");
  r.register_kernel(add->id, Backend::cuda, {"cuda.add", std::any(42), kFloat, true});
  EXPECT_EQ(r.missing_kernels(Backend::cuda).size(), r.size() - 1);
  ASSERT_NE(r.kernel(add->id, Backend::cuda), nullptr);
  EXPECT_EQ(std::any_cast<int>(r.kernel(add->id, Backend::cuda)->fn), 42);
  auto b = r.backends_with_kernel(add->id);
  EXPECT_EQ(b, (std::vector<Backend>{Backend::reference, Backend::cuda}));
}

TEST(RegistryDeathTest, DuplicateNamesAndBadDeclarationsAreBugs) {
  OpRegistry r;
  auto decl = [](std::string name, std::uint16_t id) {
    return OpDef(std::move(name), id).type_var("T", kFloat).input("x", "T").output("y", "T")
        .shape([](const ShapeArgs& a) { return ShapeResult::ok({a.inputs[0].shape}); })
        .kernel([](KernelContext&) {});
  };
  r.add(decl("a", 1));
  EXPECT_DEATH(r.add(decl("a", 2)), "two ops with one name");
  EXPECT_DEATH(r.add(decl("b", 1)), "two ops with one id");
  EXPECT_DEATH(r.add(decl("c", 3).input("z", "U")), "neither a type variable nor a dtype");
}

TensorType tt(DType d, std::vector<Dim> dims) { return TensorType{d, Shape(dims.begin(), dims.end()), MemSpace::host}; }
Dim S(const char* s) { return Dim::symbol(s); }
Dim F(std::uint64_t n) { return Dim::fixed(n); }

std::optional<Typed> infer(std::string_view op, std::vector<TensorType> in, AttrMap attrs, std::vector<std::string>& err) {
  return infer_types(*op_registry().find(op), in, attrs, err);
}

TEST(Typing, BroadcastingPropagatesSymbols) {
  std::vector<std::string> err;
  auto t = infer("add", {tt(DType::f32, {S("B"), F(1), F(3)}), tt(DType::f32, {F(4), F(3)})}, {}, err);
  ASSERT_TRUE(t) << err.at(0);
  EXPECT_EQ(t->results[0].to_string(), "f32[B, 4, 3]");
  t = infer("add", {tt(DType::f32, {S("B"), F(3)}), tt(DType::f32, {S("B"), F(1)})}, {}, err);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->results[0].to_string(), "f32[B, 3]");
}

TEST(Typing, UndecidableOrWrongBroadcastsAreErrors) {
  std::vector<std::string> err;
  EXPECT_FALSE(infer("add", {tt(DType::f32, {S("B"), F(3)}), tt(DType::f32, {S("C"), F(3)})}, {}, err));
  EXPECT_FALSE(infer("add", {tt(DType::f32, {S("B")}), tt(DType::f32, {F(5)})}, {}, err));
  EXPECT_FALSE(infer("add", {tt(DType::f32, {F(2)}), tt(DType::f32, {F(3)})}, {}, err));
  ASSERT_EQ(err.size(), 3u);
  EXPECT_NE(err[2].find("cannot broadcast dim 2 of operand 0 [2] with dim 3 of operand 1 [3]"), std::string::npos) << err[2];
}

TEST(Typing, DtypeConstraintsAndTypeVariables) {
  std::vector<std::string> err;
  EXPECT_FALSE(infer("add", {tt(DType::f32, {F(2)}), tt(DType::f16, {F(2)})}, {}, err));
  EXPECT_NE(err.back().find("already f32"), std::string::npos) << err.back();
  EXPECT_FALSE(infer("exp", {tt(DType::i32, {F(2)})}, {}, err));
  EXPECT_NE(err.back().find("accepts f32|f16|bf16"), std::string::npos) << err.back();
  EXPECT_FALSE(infer("add", {tt(DType::f32, {F(2)})}, {}, err));
  EXPECT_NE(err.back().find("takes 2 operands, got 1"), std::string::npos) << err.back();
}

TEST(Typing, AttributesAreCheckedAndDefaulted) {
  std::vector<std::string> err;
  auto t = infer("sum", {tt(DType::f32, {S("B"), F(4), F(5)})}, {{"axes", std::vector<std::int64_t>{-1, 1}}}, err);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->results[0].to_string(), "f32[B]");
  EXPECT_FALSE(t->attrs.boolean("keepdims"));
  EXPECT_FALSE(infer("sum", {tt(DType::f32, {F(4)})}, {{"axes", std::int64_t{0}}}, err));
  EXPECT_NE(err.back().find("must be ints, not int"), std::string::npos) << err.back();
  EXPECT_FALSE(infer("sum", {tt(DType::f32, {F(4)})}, {{"axis", std::int64_t{0}}}, err));
  EXPECT_NE(err.back().find("unknown attribute `axis`"), std::string::npos) << err.back();
  EXPECT_FALSE(infer("sum", {tt(DType::f32, {F(4)})}, {{"axes", std::vector<std::int64_t>{1}}}, err));
  EXPECT_NE(err.back().find("out of range"), std::string::npos) << err.back();
}

TEST(Typing, MatmulShapesAllFourForms) {
  std::vector<std::string> err;
  auto a = tt(DType::f32, {S("B"), F(2), F(3)});
  auto shape = [&](TensorType x, TensorType y, bool ta, bool tb) {
    auto t = infer("matmul", {x, y}, {{"transpose_a", ta}, {"transpose_b", tb}}, err);
    return t ? t->results[0].to_string() : "error: " + err.back();
  };
  EXPECT_EQ(shape(a, tt(DType::f32, {F(3), F(5)}), false, false), "f32[B, 2, 5]");
  EXPECT_EQ(shape(a, tt(DType::f32, {F(5), F(3)}), false, true), "f32[B, 2, 5]");
  EXPECT_EQ(shape(a, tt(DType::f32, {F(2), F(5)}), true, false), "f32[B, 3, 5]");
  EXPECT_EQ(shape(a, tt(DType::f32, {F(5), F(2)}), true, true), "f32[B, 3, 5]");
  EXPECT_EQ(shape(a, tt(DType::f32, {F(4), F(5)}), false, false).substr(0, 31), "error: contraction dims differ:");
}

TEST(Signatures, TheSampleGraphValidatesAgainstTheRegistry) {
  Graph g = sample_mlp();
  RegistrySignatures sig;
  DiagnosticSink d;
  ValidateOptions o;
  o.signatures = &sig;
  EXPECT_TRUE(validate(g, d, o));
  for (const auto& x : d.all()) ADD_FAILURE() << x.code << " " << x.message;
}

TEST(Signatures, WrongResultTypeIsG0013AndUnknownOpcodeG0014) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, tensor(DType::f32, {Dim::fixed(4)}));
  auto y = b.op("exp", {x}, tensor(DType::f32, {Dim::fixed(5)}));
  auto z = b.op("frobnicate", {x}, tensor(DType::f32, {Dim::fixed(4)}));
  b.export_region("f", {x}, {y, z});
  RegistrySignatures sig;
  DiagnosticSink d;
  ValidateOptions o;
  o.signatures = &sig;
  EXPECT_FALSE(validate(g, d, o));
  std::vector<std::string> codes;
  for (const auto& e : d.all()) codes.push_back(e.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"G0013", "G0014"}));
  EXPECT_NE(d.all()[0].message.find("declared f32[5] but `exp` gives f32[4]"), std::string::npos) << d.all()[0].message;
}

}  // namespace
}  // namespace rung::ops
