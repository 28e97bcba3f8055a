#include <gtest/gtest.h>

#include "runtime/csv.h"

namespace rung {
namespace {
using csv::Header;

struct Read {
  SourceMap sm;
  DiagnosticSink d;
  std::optional<ops::HostTensor> t;
  Read(const std::string& text, DType dt = DType::f32, Header h = Header::detect) {
    SourceId id = sm.add("t.csv", text);
    t = csv::parse(id, sm, dt, h, d);
  }
  // "CODE line:col" of the first diagnostic.
  std::string where() const {
    if (d.all().empty()) return "none";
    const Diagnostic& x = d.all().front();
    const Label* l = x.primary_label();
    if (!l) return x.code;
    LineCol lc = sm.get(l->span.source).line_col(l->span.begin);
    return x.code + " " + std::to_string(lc.line) + ":" + std::to_string(lc.column);
  }
};

ops::Extents shape(const Read& r) { return r.t ? r.t->shape() : ops::Extents{999}; }
}  // namespace

TEST(Csv, ReadsRowsAndSkipsAHeaderOfNames) {
  Read r("a,b,c\n1,2,3\r\n4, 5 ,6.5\n\n");
  ASSERT_TRUE(r.t) << r.where();
  EXPECT_EQ(shape(r), (ops::Extents{2, 3}));
  EXPECT_EQ(r.t->load_f32(4), 5.0f);
  EXPECT_EQ(r.t->load_f32(5), 6.5f);
  Read quoted("\"x, first\",\"y \"\"2\"\"\"\n1,2\n");  // quoted names may hold commas and quotes
  EXPECT_EQ(shape(quoted), (ops::Extents{1, 2})) << quoted.where();
  Read bom("\xEF\xBB\xBFname,value\n1,2\n");
  EXPECT_EQ(shape(bom), (ops::Extents{1, 2})) << bom.where();
}

// Issue 17 item 5: each of these first rows was taken for a header and dropped.
TEST(Csv, AFirstRowOfDataIsNeverDropped) {
  Read bom("\xEF\xBB\xBF" "1,2\n3,4\n");  // a byte order mark is not a field
  ASSERT_EQ(shape(bom), (ops::Extents{2, 2})) << bom.where();
  EXPECT_EQ(bom.t->load_f32(0), 1.0f);
  Read plus("+1,2\n3,+4\n");
  ASSERT_EQ(shape(plus), (ops::Extents{2, 2})) << plus.where();
  EXPECT_EQ(plus.t->load_f32(0), 1.0f);
  EXPECT_EQ(plus.t->load_f32(3), 4.0f);
  Read dot(".5,1\n2,-.25\n");
  ASSERT_EQ(shape(dot), (ops::Extents{2, 2})) << dot.where();
  EXPECT_EQ(dot.t->load_f32(0), 0.5f);
  EXPECT_EQ(dot.t->load_f32(3), -0.25f);
  Read one("1,2,3\n");  // one row: f32[1, 3], not f32[0, 0]
  ASSERT_EQ(shape(one), (ops::Extents{1, 3})) << one.where();
  Read special("inf,-Infinity,nan,1e-3,2.\n");
  EXPECT_EQ(shape(special), (ops::Extents{1, 5})) << special.where();
}

TEST(Csv, AnEmptyFieldIsAnErrorInEveryRow) {
  Read first("1,,3\n4,5,6\n");
  EXPECT_FALSE(first.t);
  EXPECT_EQ(first.where(), "V0001 1:3");
  Read second("1,2,3\n4,,6\n");
  EXPECT_FALSE(second.t);
  EXPECT_EQ(second.where(), "V0001 2:3");
}

TEST(Csv, AFirstRowMixingNamesAndNumbersIsData) {
  Read r("a,1\n2,3\n");
  EXPECT_FALSE(r.t);
  EXPECT_EQ(r.where(), "V0001 1:1");
  ASSERT_FALSE(r.d.all().front().notes.empty());
  EXPECT_NE(r.d.all().front().notes[0].find("header: true"), std::string::npos);
  Read garbage("1x,2\n3,4\n");
  EXPECT_EQ(garbage.where(), "V0001 1:1");
}

TEST(Csv, NamesWithoutDataAreAmbiguous) {
  Read r("a,b\n");
  EXPECT_FALSE(r.t);
  EXPECT_EQ(r.where(), "V0004 1:1");
  Read declared("a,b\n", DType::f32, Header::present);
  EXPECT_EQ(shape(declared), (ops::Extents{0, 2})) << declared.where();
}

TEST(Csv, DeclaredHeaders) {
  Read yes("1,2\n3,4\n", DType::f32, Header::present);  // declared: row 1 is the header, whatever it holds
  ASSERT_EQ(shape(yes), (ops::Extents{1, 2})) << yes.where();
  EXPECT_EQ(yes.t->load_f32(0), 3.0f);
  Read no("a,b\n1,2\n", DType::f32, Header::absent);
  EXPECT_EQ(no.where(), "V0001 1:1");
  Read empty("", DType::f32, Header::present);
  EXPECT_EQ(empty.where(), "V0004 1:1");
  Read narrow("a,b,c\n1,2\n");
  EXPECT_EQ(narrow.where(), "V0002 2:1");
  EXPECT_NE(narrow.d.all().front().message.find("the header has 3"), std::string::npos);
  EXPECT_EQ(csv::header_of("csv"), Header::detect);
  EXPECT_EQ(csv::header_of("csv.header"), Header::present);
  EXPECT_EQ(csv::header_of("csv.noheader"), Header::absent);
}

TEST(Csv, IntegersAreExactAndInRange) {
  Read r("1,2\n3,+4\n", DType::i32);
  ASSERT_TRUE(r.t) << r.where();
  EXPECT_EQ(r.t->load_i64(3), 4);
  Read frac("1,2.5\n", DType::i32);
  EXPECT_EQ(frac.where(), "V0001 1:3");
  Read whole("2.0,-3e2\n", DType::i32);
  ASSERT_TRUE(whole.t) << whole.where();
  EXPECT_EQ(whole.t->load_i64(1), -300);
  Read big("9007199254740993,-9223372036854775808\n", DType::i64);  // not through a double
  ASSERT_TRUE(big.t) << big.where();
  EXPECT_EQ(big.t->load_i64(0), 9007199254740993);
  EXPECT_EQ(big.t->load_i64(1), INT64_MIN);
  Read u64("18446744073709551615\n", DType::u64);
  ASSERT_TRUE(u64.t) << u64.where();
  EXPECT_EQ(u64.t->load_u64(0), UINT64_MAX);
  EXPECT_EQ(Read("1,200\n", DType::i8).where(), "V0001 1:3");
  EXPECT_EQ(Read("-1\n", DType::u8).where(), "V0001 1:1");
  EXPECT_EQ(Read("9223372036854775808\n", DType::i64).where(), "V0001 1:1");
  EXPECT_EQ(Read("1e30\n", DType::i64).where(), "V0001 1:1");
}

TEST(Csv, FloatsOutOfRangeAreErrors) {
  EXPECT_EQ(Read("1,1e39\n").where(), "V0001 1:3");
  EXPECT_EQ(Read("70000\n", DType::f16).where(), "V0001 1:1");
  EXPECT_EQ(Read("1e400\n", DType::f64).where(), "V0001 1:1");
  Read tiny("1e-400,-1e-50\n");  // underflow rounds, as a literal does
  ASSERT_TRUE(tiny.t) << tiny.where();
  EXPECT_EQ(tiny.t->load_f32(0), 0.0f);
}

TEST(Csv, RaggedRowsAndGarbageAreLocated) {
  Read ragged("1,2,3\n4,5\n");
  EXPECT_EQ(ragged.where(), "V0002 2:1");
  Read garbage("1,2\n3,x\n");
  EXPECT_EQ(garbage.where(), "V0001 2:3");
  EXPECT_EQ(garbage.d.all()[0].labels[0].span.begin, 6u);
  EXPECT_EQ(Read("1\n2\n", DType::boolean).where(), "V0003");
}

}  // namespace rung
