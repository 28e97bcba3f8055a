// Helpers for op tests: evaluate one op on the reference and read results back.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ops/evaluate.h"
#include "ops/numerics/half.h"
#include "ops/numerics/portable.h"

namespace rung::ops::testing {

// Evaluates `op`; fails the test (and returns an empty tensor) on diagnostics.
inline HostTensor eval1(std::string_view op, std::vector<HostTensor> inputs, const AttrMap& attrs = {}) {
  DiagnosticSink d;
  auto out = evaluate(op, inputs, attrs, d);
  if (!out) {
    std::string msg;
    for (const auto& x : d.all()) {
      msg += x.code + ": " + x.message + "\n";
      for (const auto& n : x.notes) msg += "  note: " + n + "\n";
    }
    ADD_FAILURE() << "evaluating " << op << " failed:\n" << msg;
    return {};
  }
  return std::move(out->front());
}

// The diagnostic codes evaluating `op` reports (empty when it succeeds).
inline std::vector<std::string> eval_codes(std::string_view op, std::vector<HostTensor> inputs, const AttrMap& attrs = {}) {
  DiagnosticSink d;
  evaluate(op, inputs, attrs, d);
  std::vector<std::string> codes;
  for (const auto& x : d.all()) codes.push_back(x.code);
  return codes;
}

inline HostTensor f32(Extents shape, std::vector<float> v) { return HostTensor::from_f32(std::move(shape), v); }
inline HostTensor f64(Extents shape, std::vector<double> v) { return HostTensor::from_f64(std::move(shape), v); }
inline HostTensor i64(Extents shape, std::vector<std::int64_t> v, DType dt = DType::i64) {
  return HostTensor::from_i64(std::move(shape), v, dt);
}
inline HostTensor scalar(float v) { return f32({}, {v}); }

inline std::vector<float> values_f32(const HostTensor& t) {
  std::vector<float> v;
  for (std::uint64_t i = 0; i < t.numel(); ++i) v.push_back(t.load_f32(i));
  return v;
}
inline std::vector<std::int64_t> values_i64(const HostTensor& t) {
  std::vector<std::int64_t> v;
  for (std::uint64_t i = 0; i < t.numel(); ++i) v.push_back(t.load_i64(i));
  return v;
}

inline std::uint32_t bits(float x) { return num::bits_of(x); }
inline float from_bits(std::uint32_t u) { return num::f32_from_bits(u); }

// Bit equality that prints both values on failure (NaN payloads are canonical already).
#define EXPECT_SAME_BITS(a, b) EXPECT_EQ(::rung::num::bits_of(a), ::rung::num::bits_of(b)) << (a) << " vs " << (b)

inline float nanf() { return num::nan_f32(); }
inline float inff() { return num::inf_f32(); }

}  // namespace rung::ops::testing
