#include <gtest/gtest.h>

#include <random>

#include "runtime/npy.h"

namespace rung {
namespace {
std::string str(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }
}  // namespace

TEST(Npy, RoundTripEveryPlainDtype) {
  for (DType dt : {DType::f32, DType::f64, DType::f16, DType::i64, DType::i32, DType::i16, DType::i8, DType::u64, DType::u32,
                   DType::u16, DType::u8, DType::boolean}) {
    ops::HostTensor t(dt, {2, 3});
    for (std::size_t i = 0; i < t.bytes().size(); ++i) t.bytes()[i] = dt == DType::boolean ? (i % 2) : static_cast<std::uint8_t>(i * 7 + 1);
    DiagnosticSink d;
    auto bytes = npy::serialize(t, d);
    ASSERT_TRUE(bytes) << dtype_name(dt);
    EXPECT_EQ(bytes->size() % 64, t.bytes().size() % 64) << "data starts on a 64-byte boundary";
    auto back = npy::parse(str(*bytes), 0, d);
    ASSERT_TRUE(back) << dtype_name(dt);
    EXPECT_TRUE(back->identical(t)) << dtype_name(dt);
  }
}

TEST(Npy, ScalarsAndVectorsUseNumpyShapeSyntax) {
  DiagnosticSink d;
  auto s = npy::serialize(ops::HostTensor::scalar_f32(1.5f), d);
  EXPECT_NE(str(*s).find("'shape': ()"), std::string::npos);
  float v[3] = {1, 2, 3};
  auto vec = npy::serialize(ops::HostTensor::from_f32({3}, v), d);
  EXPECT_NE(str(*vec).find("'shape': (3,)"), std::string::npos);
}

TEST(Npy, BigEndianIsSwapped) {
  std::string header = "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header +
                     std::string("\x00\x00\x00\x01\x00\x00\x01\x00", 8);
  DiagnosticSink d;
  auto t = npy::parse(file, 0, d);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->load_i64(0), 1);
  EXPECT_EQ(t->load_i64(1), 256);
}

TEST(Npy, RefusesBadInputWithCodes) {
  auto header = [](std::string h, std::string data) {
    return std::string("\x93NUMPY\x01\x00", 8) + char(h.size()) + '\0' + h + data;
  };
  struct Case {
    std::string bytes;
    const char* code;
  } cases[] = {
      {"hello", "Y0001"},
      {std::string("\x93NUMPY\x01\x00\xff\xff", 10), "Y0002"},
      {std::string("\x93NUMPY\x09\x00\x00\x00", 10), "Y0003"},
      {header("{'descr': '<f4', 'shape': (2,), }", std::string(8, 0)), "Y0004"},
      {header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", std::string(8, 0)), "Y0005"},
      {header("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", std::string(16, 0)), "Y0006"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(8, 0)), "Y0007"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,99999999999), }", ""), "Y0007"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(8, 0)), "Y0008"},
      {header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x07"), "Y0009"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""), "Y0004"},
  };
  for (const auto& c : cases) {
    DiagnosticSink d;
    EXPECT_FALSE(npy::parse(c.bytes, 0, d)) << c.code;
    ASSERT_FALSE(d.empty()) << c.code;
    EXPECT_EQ(d.all().front().code, c.code) << d.all().front().message;
  }
}

TEST(Npy, RandomDamageNeverCrashes) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  DiagnosticSink d0;
  auto good = *npy::serialize(ops::HostTensor::from_f32({2, 3}, v), d0);
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    auto b = good;
    if (i % 2) b.resize(rng() % b.size());
    for (int k = 0; k < 3; ++k)
      if (!b.empty()) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    DiagnosticSink d;
    auto t = npy::parse(str(b), 0, d);
    EXPECT_TRUE(t.has_value() || d.has_errors());
  }
}

TEST(Npy, QuantizedTensorsHaveNoNumpyDtype) {
  DiagnosticSink d;
  EXPECT_FALSE(npy::serialize(ops::HostTensor(DType::q8_0, {32}), d));
  EXPECT_TRUE(d.contains("Y0006"));
}

}  // namespace rung
