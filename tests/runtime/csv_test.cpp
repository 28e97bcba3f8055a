#include <gtest/gtest.h>

#include "runtime/csv.h"

namespace rung {
namespace {
std::optional<ops::HostTensor> parse(const std::string& text, DType dt, DiagnosticSink& d) {
  SourceMap sm;
  SourceId id = sm.add("t.csv", text);
  return csv::parse(id, sm, dt, d);
}
}  // namespace

TEST(Csv, ReadsRowsAndSkipsAHeader) {
  DiagnosticSink d;
  auto t = parse("a,b,c\n1,2,3\r\n4, 5 ,6.5\n\n", DType::f32, d);
  ASSERT_TRUE(t) << d.all().front().message;
  EXPECT_EQ(t->shape(), (ops::Extents{2, 3}));
  EXPECT_EQ(t->load_f32(4), 5.0f);
  EXPECT_EQ(t->load_f32(5), 6.5f);
}

TEST(Csv, IntegersMustBeWhole) {
  DiagnosticSink d;
  auto t = parse("1,2\n3,4\n", DType::i32, d);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->load_i64(3), 4);
  EXPECT_FALSE(parse("1,2.5\n", DType::i32, d));
  EXPECT_TRUE(d.contains("V0001"));
}

TEST(Csv, RaggedRowsAndGarbageAreLocated) {
  DiagnosticSink d;
  EXPECT_FALSE(parse("1,2,3\n4,5\n", DType::f32, d));
  EXPECT_TRUE(d.contains("V0002"));
  DiagnosticSink d2;
  EXPECT_FALSE(parse("1,2\n3,x\n", DType::f32, d2));
  ASSERT_TRUE(d2.contains("V0001"));
  EXPECT_EQ(d2.all()[0].labels[0].span.begin, 6u);
}

}  // namespace rung
