// The (op, dtype) pairs `rung ops --missing webgpu` lists — the dtypes the WebGPU kernel
// entries do not declare (ops/kernel_coverage.h) — are exactly those the WGSL generator
// cannot build a program for. For every op with a WebGPU kernel and every dtype it accepts,
// generated conformance cases are handed to the generator (W3C default limits: no device
// needed): a declared dtype must generate for some case, an undeclared one for none.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/webgpu/backend.h"
#include "backends/webgpu/executor.h"
#include "conformance/case_gen.h"
#include "ops/kernel_coverage.h"

namespace rung::webgpu {
namespace {

TEST(WebGpuCoverage, MissingDtypesAreWhatTheGeneratorRefuses) {
  ops::OpRegistry& r = ops::op_registry();
  register_webgpu_kernels(r);
  std::size_t pairs = 0, lacking_pairs = 0;
  bool mul_i64_listed = false;
  for (const ops::OpDef* op : r.all()) {
    if (!r.kernel(op->id, ops::Backend::webgpu)) continue;
    const std::vector<DType> lacking = ops::missing_dtypes(r, *op, ops::Backend::webgpu);
    for (DType dt : ops::row_dtypes(*op)) {
      const bool declared = std::find(lacking.begin(), lacking.end(), dt) == lacking.end();
      if (!declared && op->name == "mul" && dt == DType::i64) mul_i64_listed = true;
      int tried = 0, generated = 0;
      std::string refusal;
      for (std::size_t i = 0; i < 4; ++i) {
        std::string why;
        auto c = conformance::generate_case(*op, {0x72756e67, i, dt, ops::Tier::prod, 512}, why);
        if (!c) continue;
        ++tried;
        std::vector<TensorDesc> in, out;
        for (const auto& t : c->inputs) in.push_back(TensorDesc{t.dtype(), t.shape()});
        DiagnosticSink d;
        if (program_for_types(*op, in, c->attrs, DeviceCaps{}, out, d)) ++generated;
        else if (!d.empty()) refusal = d.all().front().code + " " + d.all().front().message;
      }
      if (tried == 0) continue;  // no case the reference accepts: conformance reports that itself
      ++pairs;
      lacking_pairs += declared ? 0 : 1;
      if (declared) EXPECT_GT(generated, 0) << op->name << " " << dtype_name(dt) << ": declared, yet " << refusal;
      else EXPECT_EQ(generated, 0) << op->name << " " << dtype_name(dt) << ": generates, yet `rung ops --missing webgpu` lists it";
    }
  }
  std::printf("%zu (op, dtype) pairs checked, %zu without a WebGPU kernel\n", pairs, lacking_pairs);
  // 64-bit integer products would wrap at 32 bits on the device: still listed (add and sub
  // claim i64 since 2026-12-03, with a check that refuses a result outside the 32 bits).
  EXPECT_TRUE(mul_i64_listed);
}

}  // namespace
}  // namespace rung::webgpu
