#include "backends/webgpu/wgsl/gemm.h"

namespace rung::webgpu {

std::optional<Step> gemm_step(const KernelArgs& a, const GemmSpec& g, std::string& error, const GemmWindow* w) {
  GemmWindow whole;
  whole.zc = g.batch;
  whole.rc = g.M;
  if (!w) w = &whole;
  if (g.batch > a.caps.max_workgroups || (w->rc + 63) / 64 > a.caps.max_workgroups || (g.N + 63) / 64 > a.caps.max_workgroups) {
    error = "a GEMM grid beyond maxComputeWorkgroupsPerDimension";
    return std::nullopt;
  }
  std::string title = g.title;
  if (w->split)
    title += " (batches " + std::to_string(w->z0) + ".." + std::to_string(w->z0 + w->zc) + ", rows " + std::to_string(w->r0) + ".." +
             std::to_string(w->r0 + w->rc) + ")";
  Module m(a, title);
  if (w->split)
    m.comment("split: A or C exceeds maxStorageBufferBindingSize, so this dispatch computes a window of independent rows; "
              "A and C are bound from element offsets A_BASE / C_BASE");
  m.comment("C[z, i, j] = fma chain over k = 0..K-1 of A[z, i, k] * B[z, k, j], from +0.0 (one accumulator per output)");
  m.comment("tiling: 64x64 outputs per workgroup, 4x4 per invocation, k staged 16 at a time in workgroup memory");
  Binding aw, cw;
  if (w->split) {
    if (w->window_a) aw = Binding{0, w->a_base * 4, w->a_words * 4};
    cw = Binding{0, w->c_base * 4, w->c_words * 4};
  }
  m.bind(g.a.slot, g.a.name, Scalar::f32, false, g.a.what, aw);
  m.bind(g.b.slot, g.b.name, Scalar::f32, false, g.b.what);
  if (g.bias_slot >= 0) m.bind(g.bias_slot, g.bias_name, Scalar::f32, false, "bias [" + std::to_string(g.N) + "]");
  for (const auto& e : g.extra) m.bind(e.slot, e.name, Scalar::f32, false, e.what);
  m.bind(g.out_slot, "out_y", Scalar::f32, true, "C", cw);
  m.constant("M", g.M);
  if (w->split) {
    m.constant("Z0", w->z0);
    m.constant("R0", w->r0);
    m.constant("ROW_END", w->r0 + w->rc);
    m.constant("A_BASE", w->window_a ? w->a_base : 0);
    m.constant("C_BASE", w->c_base);
  }
  m.constant("N", g.N);
  m.constant("K", g.K);
  for (const auto& h : g.epilogue_helpers) m.use(h);
  std::string fit = fit_function(m, g.out_dtype);
  m.code("var<workgroup> As: array<f32, 1024>;  // [16 k][64 rows]\nvar<workgroup> Bs: array<f32, 1024>;  // [16 k][64 cols]\n");
  std::string ai = g.a.transposed ? "k * M + i" : "i * K + k";
  std::string bi = g.b.transposed ? "j * K + k" : "k * N + j";
  std::string row_end = w->split ? "ROW_END" : "M";
  m.code("fn a_at(z: u32, i: u32, k: u32) -> f32 {\n  if (i >= " + row_end + " || k >= K) { return 0.0f; }\n  return " + g.a.name + "[" +
         g.a.batch_offset + " + " + ai + (w->split ? " - A_BASE" : "") + "];\n}\n" + "fn b_at(z: u32, k: u32, j: u32) -> f32 {\n  if (j >= N || k >= K) { return 0.0f; }\n  return " +
         g.b.name + "[" + g.b.batch_offset + " + " + bi + "];\n}\n");
  std::string body =
      std::string(w->split ? "  let z = Z0 + wid.z;\n" : "  let z = wid.z;\n") +
      "  let tx = lid.x % 16u;\n"
      "  let ty = lid.x / 16u;\n"
      "  let rt = " + (w->split ? "R0 + " : "") + "wid.y * 64u;  // this workgroup's first row\n"
      "  let row0 = rt + ty * 4u;\n"
      "  let col0 = wid.x * 64u + tx * 4u;\n"
      "  var acc: array<f32, 16>;\n"
      "  for (var r = 0u; r < 16u; r = r + 1u) { acc[r] = 0.0f; }\n"
      "  for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {\n"
      "    for (var r = 0u; r < 4u; r = r + 1u) {\n"
      "      let e = lid.x + r * 256u;\n"
      "      As[e] = a_at(z, rt + e % 64u, k0 + e / 64u);\n"
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
      "      if (i < " + row_end + " && j < N) {\n"
      "        var v = acc[r * 4u + c];\n" +
      (g.bias_slot >= 0 ? "        v = v + " + g.bias_name + "[j];  // bias: a separate rounded addition\n" : std::string()) +
      (g.epilogue.empty() ? std::string() : "        v = " + g.epilogue + ";\n") +
      "        out_y[z * M * N + i * N + j" + (w->split ? " - C_BASE" : "") + "] = " + fit + "(v);\n"
      "      }\n"
      "    }\n"
      "  }\n";
  Dispatch d{static_cast<std::uint32_t>((g.N + 63) / 64), static_cast<std::uint32_t>((w->rc + 63) / 64),
             static_cast<std::uint32_t>(w->zc)};
  if (w->rc == 0 || g.N == 0 || w->zc == 0) d = {0, 1, 1};
  return m.finish(body, 256, d);
}

std::optional<std::vector<Step>> gemm_steps(const KernelArgs& a, const GemmSpec& g, std::string& error, std::uint64_t a_words,
                                            bool a_row_contiguous) {
  const std::uint64_t cap = a.caps.max_binding, align = std::max<std::uint32_t>(4, a.caps.offset_alignment) / 4;
  const std::uint64_t c_words = g.batch * g.M * g.N;
  bool a_big = a_words * 4 > cap, c_big = c_words * 4 > cap;
  bool tall = (g.M + 63) / 64 > a.caps.max_workgroups;  // more row tiles than one grid dimension holds
  if (!a_big && !c_big && !tall) {
    auto st = gemm_step(a, g, error);
    if (!st) return std::nullopt;
    return std::vector<Step>{std::move(*st)};
  }
  if (!g.extra.empty()) {
    error = "a GEMM with an epilogue operand beyond maxStorageBufferBindingSize is not split";
    return std::nullopt;
  }
  if (a_big && !a_row_contiguous) {
    error = "operand A (transposed or broadcast over the batch) exceeds maxStorageBufferBindingSize; only row windows of a "
            "row-major A are split";
    return std::nullopt;
  }
  bool window_a = a_row_contiguous;
  // Words per row of C (and of A when it is windowed); the window start is aligned down, so a
  // window may carry up to align - 1 words before its first row.
  std::uint64_t row_words = std::max<std::uint64_t>(g.N, window_a ? g.K : 0);
  std::uint64_t usable = cap / 4 > align ? cap / 4 - align : 0;
  std::uint64_t zc = 1, rc = g.M;
  if (g.batch > 1 && g.M * row_words <= usable && !tall) {
    zc = usable / (g.M * row_words);
  } else {
    rc = usable / std::max<std::uint64_t>(row_words, 1);
    rc = std::min<std::uint64_t>(rc, std::uint64_t{a.caps.max_workgroups} * 64);
    if (rc >= 64) rc = rc / 64 * 64;
    if (rc == 0) {
      error = "one row of the GEMM (" + std::to_string(row_words * 4) + " bytes) exceeds maxStorageBufferBindingSize";
      return std::nullopt;
    }
  }
  std::vector<Step> steps;
  for (std::uint64_t z0 = 0; z0 < g.batch; z0 += zc) {
    for (std::uint64_t r0 = 0; r0 < g.M; r0 += rc) {
      GemmWindow w;
      w.split = true;
      w.window_a = window_a;
      w.z0 = z0;
      w.zc = std::min(zc, g.batch - z0);
      w.r0 = r0;
      w.rc = std::min(rc, g.M - r0);
      std::uint64_t first = z0 * g.M + r0, last = first + (w.zc - 1) * g.M + w.rc;  // global rows [first, last)
      w.c_base = first * g.N / align * align;
      w.c_words = last * g.N - w.c_base;
      if (window_a) {
        w.a_base = first * g.K / align * align;
        w.a_words = last * g.K - w.a_base;
      }
      auto st = gemm_step(a, g, error, &w);
      if (!st) return std::nullopt;
      steps.push_back(std::move(*st));
    }
  }
  return steps;
}

}  // namespace rung::webgpu
