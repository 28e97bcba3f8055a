#include "backends/webgpu/wgsl/gemm.h"

namespace rung::webgpu {

std::optional<Step> gemm_step(const KernelArgs& a, const GemmSpec& g, std::string& error) {
  if (g.batch > a.caps.max_workgroups || (g.M + 63) / 64 > a.caps.max_workgroups || (g.N + 63) / 64 > a.caps.max_workgroups) {
    error = "a GEMM grid beyond maxComputeWorkgroupsPerDimension";
    return std::nullopt;
  }
  Module m(a, g.title);
  m.comment("C[z, i, j] = fma chain over k = 0..K-1 of A[z, i, k] * B[z, k, j], from +0.0 (one accumulator per output)");
  m.comment("tiling: 64x64 outputs per workgroup, 4x4 per invocation, k staged 16 at a time in workgroup memory");
  m.bind(g.a.slot, g.a.name, Scalar::f32, false, g.a.what);
  m.bind(g.b.slot, g.b.name, Scalar::f32, false, g.b.what);
  if (g.bias_slot >= 0) m.bind(g.bias_slot, g.bias_name, Scalar::f32, false, "bias [" + std::to_string(g.N) + "]");
  for (const auto& e : g.extra) m.bind(e.slot, e.name, Scalar::f32, false, e.what);
  m.bind(g.out_slot, "out_y", Scalar::f32, true, "C");
  m.constant("M", g.M);
  m.constant("N", g.N);
  m.constant("K", g.K);
  for (const auto& h : g.epilogue_helpers) m.use(h);
  std::string fit = fit_function(m, g.out_dtype);
  m.code("var<workgroup> As: array<f32, 1024>;  // [16 k][64 rows]\nvar<workgroup> Bs: array<f32, 1024>;  // [16 k][64 cols]\n");
  std::string ai = g.a.transposed ? "k * M + i" : "i * K + k";
  std::string bi = g.b.transposed ? "j * K + k" : "k * N + j";
  m.code("fn a_at(z: u32, i: u32, k: u32) -> f32 {\n  if (i >= M || k >= K) { return 0.0f; }\n  return " + g.a.name + "[" +
         g.a.batch_offset + " + " + ai + "];\n}\n" + "fn b_at(z: u32, k: u32, j: u32) -> f32 {\n  if (j >= N || k >= K) { return 0.0f; }\n  return " +
         g.b.name + "[" + g.b.batch_offset + " + " + bi + "];\n}\n");
  std::string body =
      "  let z = wid.z;\n"
      "  let tx = lid.x % 16u;\n"
      "  let ty = lid.x / 16u;\n"
      "  let row0 = wid.y * 64u + ty * 4u;\n"
      "  let col0 = wid.x * 64u + tx * 4u;\n"
      "  var acc: array<f32, 16>;\n"
      "  for (var r = 0u; r < 16u; r = r + 1u) { acc[r] = 0.0f; }\n"
      "  for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {\n"
      "    for (var r = 0u; r < 4u; r = r + 1u) {\n"
      "      let e = lid.x + r * 256u;\n"
      "      As[e] = a_at(z, wid.y * 64u + e % 64u, k0 + e / 64u);\n"
      "      Bs[e] = b_at(z, k0 + e / 64u, wid.x * 64u + e % 64u);\n"
      "    }\n"
      "    workgroupBarrier();\n"
      "    let kn = min(16u, K - k0);  // only real k: the chain has exactly K steps\n"
      "    for (var kk = 0u; kk < kn; kk = kk + 1u) {\n"
      "      var av: array<f32, 4>;\n"
      "      var bv: array<f32, 4>;\n"
      "      for (var t = 0u; t < 4u; t = t + 1u) { av[t] = As[kk * 64u + ty * 4u + t]; bv[t] = Bs[kk * 64u + tx * 4u + t]; }\n"
      "      for (var r = 0u; r < 4u; r = r + 1u) {\n"
      "        for (var c = 0u; c < 4u; c = c + 1u) { acc[r * 4u + c] = fma(av[r], bv[c], acc[r * 4u + c]); }\n"
      "      }\n"
      "    }\n"
      "    workgroupBarrier();\n"
      "  }\n"
      "  for (var r = 0u; r < 4u; r = r + 1u) {\n"
      "    for (var c = 0u; c < 4u; c = c + 1u) {\n"
      "      let i = row0 + r;\n"
      "      let j = col0 + c;\n"
      "      if (i < M && j < N) {\n"
      "        var v = acc[r * 4u + c];\n" +
      (g.bias_slot >= 0 ? "        v = v + " + g.bias_name + "[j];  // bias: a separate rounded addition\n" : std::string()) +
      (g.epilogue.empty() ? std::string() : "        v = " + g.epilogue + ";\n") +
      "        out_y[z * M * N + i * N + j] = " + fit + "(v);\n"
      "      }\n"
      "    }\n"
      "  }\n";
  Dispatch d{static_cast<std::uint32_t>((g.N + 63) / 64), static_cast<std::uint32_t>((g.M + 63) / 64),
             static_cast<std::uint32_t>(g.batch)};
  if (g.M == 0 || g.N == 0 || g.batch == 0) d = {0, 1, 1};
  return m.finish(body, 256, d);
}

}  // namespace rung::webgpu
