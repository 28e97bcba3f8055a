#include <gtest/gtest.h>

#include "ir/block/printer.h"
#include "ir/block/verify.h"
#include "ir/block/samples.h"

namespace rung::block {
namespace {

Program sample() { return sample_loop_program(); }

std::vector<std::string> codes(const Program& p) {
  DiagnosticSink d;
  verify(p, d);
  std::vector<std::string> c;
  for (const auto& x : d.all()) c.push_back(x.code);
  return c;
}

}  // namespace

TEST(BlockIR, SampleVerifiesAndPrints) {
  Program p = sample();
  EXPECT_EQ(codes(p), std::vector<std::string>{});
  std::string text = print(p);
  EXPECT_NE(text.find("for %3:i in %1:lo..%2:hi {"), std::string::npos) << text;
  EXPECT_NE(text.find("compute @step#"), std::string::npos) << text;
  EXPECT_NE(text.find("print \"x =\" %0:x"), std::string::npos) << text;
}

TEST(BlockIR, HashIsStableAndCoversStatements) {
  Program a = sample(), b = sample();
  EXPECT_EQ(a.hash(), b.hash());
  b.functions[0].body[2].body[0].span = Span{0, 5, 9};  // spans are not part of identity
  EXPECT_EQ(a.hash(), b.hash());
  b.functions[0].body[3].items[0].text = "y =";
  EXPECT_NE(a.hash(), b.hash());
  Program c = sample();
  c.functions[0].body[2].body.push_back(c.functions[0].body[2].body[0]);  // a nested change
  EXPECT_NE(a.hash(), c.hash());
}

TEST(BlockIR, VerifierCatchesEachClass) {
  {
    Program p = sample();
    p.functions[0].body[0].region.bytes[0] ^= 1;
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0002"});
  }
  {
    Program p = sample();
    p.functions[0].slots[0].type = tensor(DType::f32, {Dim::fixed(5)});
    auto c = codes(p);
    EXPECT_NE(std::find(c.begin(), c.end(), "B0003"), c.end());
  }
  {
    Program p = sample();
    p.functions[0].slots[3].type = tensor(DType::i32, {});
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0004"});
  }
  {
    Program p = sample();
    p.functions[0].effects.clear();
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0007"});
  }
  {
    Program p = sample();
    p.functions[0].body[4].args = {1};
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0008"});
  }
  {
    Program p = sample();
    p.functions[0].body[2].body[0].args = {42};
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0001"});
  }
  {
    Program p = sample();
    p.functions.push_back(p.functions[0]);
    auto c = codes(p);
    EXPECT_NE(std::find(c.begin(), c.end(), "B0009"), c.end());
  }
  {
    Program p = sample();
    Stmt s{.kind = StmtKind::if_else, .args = {1}};
    p.functions[0].body.insert(p.functions[0].body.begin() + 2, s);
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0005"});
  }
  {
    Program p = sample();
    Stmt s{.kind = StmtKind::call, .callee = "nowhere"};
    p.functions[0].body.insert(p.functions[0].body.begin(), s);
    EXPECT_EQ(codes(p), std::vector<std::string>{"B0006"});
  }
  {  // break/continue: fine inside the for loop's body, B0010 outside any loop
    Program p = sample();
    p.functions[0].body[2].body.push_back(Stmt{.kind = StmtKind::continue_loop});
    p.functions[0].body[2].body.push_back(Stmt{.kind = StmtKind::break_loop});
    EXPECT_TRUE(codes(p).empty());
    Program q = p;
    EXPECT_NE(p.hash(), sample().hash());
    q.functions[0].body.insert(q.functions[0].body.begin(), Stmt{.kind = StmtKind::break_loop});
    EXPECT_EQ(codes(q), std::vector<std::string>{"B0010"});
  }
}

}  // namespace rung::block
