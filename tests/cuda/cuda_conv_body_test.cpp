// The per-output functions of the cuda conv and pool kernels (backends/cuda/conv_body.h)
// run on the host over the GPU suite's conv, conv_transpose, max_pool and avg_pool cases:
// the device's index arithmetic and operation order, with host loads and stores, must give
// the reference's bits. Needs no GPU, so a wrong offset or a reordered chain shows up where
// the kernels are only compiled. What it cannot see (the grid mapping, avg_pool's warp and
// block trees, the device loads and stores) the GPU suite covers.
#include <gtest/gtest.h>

#include "backends/cuda/conv_body.h"
#include "cuda_cases.h"
#include "ops/evaluate.h"
#include "ops/kernels_conv.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung {
namespace {

template <typename T>
T load(const ops::HostTensor& t, std::uint64_t i) {
  if constexpr (std::is_same_v<T, double>)
    return t.raw<double>(i);
  else
    return t.load_f32(i);
}
template <typename T>
void store(ops::HostTensor& t, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, double>)
    t.store_f64(i, v);
  else
    t.store_f32(i, v);
}

cuda::WindowSpec spec_of(const ops::Window2& g) { return cuda::WindowSpec{g.ax[0], g.ax[1]}; }

// The kernels' launches, one output at a time on the host; `a` the resolved attributes.
template <typename T>
std::vector<ops::HostTensor> run_bodies(const cuda_test::Case& c, const ops::Attrs& a, const std::vector<TensorType>& results) {
  std::vector<ops::HostTensor> out;
  for (const auto& r : results) {
    ops::Extents e;
    for (const auto& d : r.shape) e.push_back(d.extent());
    out.emplace_back(r.dtype, e);
  }
  const ops::HostTensor& X = c.inputs[0];
  auto lx = [&](std::uint64_t o) { return load<T>(X, o); };
  std::uint64_t total = out[0].numel();
  if (c.op == "conv" || c.op == "conv_transpose") {
    bool transposed = c.op == "conv_transpose";
    const ops::HostTensor& W = c.inputs[1];
    cuda::ConvSpec s;
    s.g = spec_of(transposed ? ops::conv_transpose_window(X.shape(), W.shape(), a) : ops::conv_window(X.shape(), W.shape(), a));
    auto G = static_cast<std::uint64_t>(a.integer("groups"));
    s.N = X.shape()[0], s.C = X.shape()[1], s.M = out[0].shape()[1], s.Cg = s.C / G, s.Mg = s.M / G, s.transposed = transposed;
    auto lw = [&](std::uint64_t o) { return load<T>(W, o); };
    auto lb = [&](std::uint64_t m) { return c.inputs.size() > 2 ? load<T>(c.inputs[2], m) : T(0); };
    for (std::uint64_t i = 0; i < total; ++i) store<T>(out[0], i, cuda::conv_output<T>(s, i, lx, lw, lb));
    return out;
  }
  cuda::WindowSpec g = spec_of(ops::pool_window(X.shape(), a));
  for (std::uint64_t i = 0; i < total; ++i) {
    if (c.op == "max_pool") {
      T best;
      out[1].set_raw<std::int64_t>(i, cuda::max_pool_output<T>(g, i, lx, best));
      store<T>(out[0], i, best);
    } else {
      cuda::PoolOutput o = cuda::pool_output(g, i);
      T s = num::canonical_sum<T>(g.h.k * g.w.k, [&](std::uint64_t j) { return cuda::avg_pool_tap<T>(g, o, j, lx); });
      store<T>(out[0], i, cuda::avg_pool_mean(s, g, o, a.boolean("count_include_pad")));
    }
  }
  return out;
}

TEST(CudaConvBody, KernelBodiesGiveTheReferenceBitsOnTheHost) {
  int checked = 0;
  for (const auto& c : cuda_test::all_cases()) {
    if (c.op != "conv" && c.op != "conv_transpose" && c.op != "max_pool" && c.op != "avg_pool") continue;
    DiagnosticSink d;
    auto ref = ops::evaluate(c.op, c.inputs, c.attrs, d);
    bool refused = c.label.find("(refused)") != std::string::npos;
    EXPECT_EQ(!ref, refused) << c.label << ": " << (d.all().empty() ? "" : d.all()[0].message);
    if (!ref) continue;  // the shape rule refuses these before any kernel
    std::vector<TensorType> types;
    for (const auto& t : c.inputs) {
      TensorType tt;
      tt.dtype = t.dtype();
      for (auto e : t.shape()) tt.shape.push_back(Dim::fixed(e));
      types.push_back(std::move(tt));
    }
    std::vector<std::string> errors;
    auto typed = ops::infer_types(*ops::op_registry().find(c.op), types, c.attrs, errors);
    ASSERT_TRUE(typed) << c.label;
    auto got = c.inputs[0].dtype() == DType::f64 ? run_bodies<double>(c, typed->attrs, typed->results)
                                                 : run_bodies<float>(c, typed->attrs, typed->results);
    for (auto& o : got) o.canonicalize_nans();  // as the device's stores do (k_common.cuh)
    ASSERT_EQ(got.size(), ref->size()) << c.label;
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].identical((*ref)[i])) << c.label << " output " << i;
    ++checked;
  }
  EXPECT_GE(checked, 40);  // every float dtype of each op, plus the special shapes
}

}  // namespace
}  // namespace rung
