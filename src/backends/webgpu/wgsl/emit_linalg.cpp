// matmul (batched, broadcast batch dims, either operand transposed), linear (x W^T + b) and
// the feed-forward composites, all on the tiled GEMM step (wgsl/gemm.h). The composites keep
// their hidden activations in f32 scratch buffers, as the reference does.
#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/gemm.h"
#include "backends/webgpu/wgsl/generator.h"

namespace rung::webgpu {
namespace {

using ops::Extents;

std::uint64_t rows_of(const Extents& s) {
  std::uint64_t r = 1;
  for (std::size_t d = 0; d + 1 < s.size(); ++d) r *= s[d];
  return r;
}

bool fits(const KernelArgs& a, std::string& error) {
  for (const auto& t : a.in)
    if (t.numel() * 4 > a.caps.max_binding) {
      error = "a matrix operand (" + t.to_string() + ") beyond maxStorageBufferBindingSize is not split by this kernel";
      return false;
    }
  for (const auto& t : a.out)
    if (t.numel() * 4 > a.caps.max_binding) {
      error = "a matrix result (" + t.to_string() + ") beyond maxStorageBufferBindingSize is not split by this kernel";
      return false;
    }
  return true;
}

// Operands other than A and C (B, the bias) are bound whole.
bool others_fit(const KernelArgs& a, std::string& error) {
  for (std::size_t i = 1; i < a.in.size(); ++i)
    if (a.in[i].numel() * 4 > a.caps.max_binding) {
      error = "operand " + std::to_string(i + 1) + " (" + a.in[i].to_string() +
              ") exceeds maxStorageBufferBindingSize; GEMMs are split along the rows of A and C only";
      return false;
    }
  return true;
}

std::optional<Program> program_of(std::optional<std::vector<Step>> steps) {
  if (!steps) return std::nullopt;
  Program p;
  p.steps = std::move(*steps);
  return p;
}

std::optional<Program> emit_matmul(const KernelArgs& a, std::string& error) {
  if (!others_fit(a, error)) return std::nullopt;
  const Extents &sa = a.in[0].shape, &sb = a.in[1].shape, &sy = a.out[0].shape;
  bool ta = a.attrs.boolean("transpose_a"), tb = a.attrs.boolean("transpose_b");
  GemmSpec g;
  g.M = sy[sy.size() - 2];
  g.N = sy.back();
  g.K = ta ? sa[sa.size() - 2] : sa.back();
  Extents bya(sa.begin(), sa.end() - 2), byb(sb.begin(), sb.end() - 2), by(sy.begin(), sy.end() - 2);
  g.batch = ops::element_count(by);
  g.title = "matmul " + std::to_string(g.M) + "x" + std::to_string(g.K) + " · " + std::to_string(g.K) + "x" + std::to_string(g.N) +
            (g.batch > 1 ? ", batch " + std::to_string(g.batch) : "");
  std::uint64_t amat = g.M * g.K, bmat = g.K * g.N;
  g.a = {0, "a", a.in[0].to_string(), ta, "(" + broadcast_index(bya, by, "z") + ") * " + u32_lit(amat)};
  g.b = {1, "b", a.in[1].to_string(), tb, "(" + broadcast_index(byb, by, "z") + ") * " + u32_lit(bmat)};
  g.out_slot = 2;
  g.out_dtype = a.out[0].dtype;
  return program_of(gemm_steps(a, g, error, a.in[0].numel(), !ta && (bya == by || g.batch == 1)));
}

std::optional<Program> emit_linear(const KernelArgs& a, std::string& error) {
  if (!others_fit(a, error)) return std::nullopt;
  GemmSpec g;
  g.M = rows_of(a.in[0].shape);
  g.K = a.in[0].shape.back();
  g.N = a.in[1].shape[0];
  g.title = "linear: x W^T (" + std::to_string(g.M) + "x" + std::to_string(g.K) + ", W " + std::to_string(g.N) + "x" +
            std::to_string(g.K) + ")" + (a.in.size() > 2 ? " + b" : "");
  g.a = {0, "x", a.in[0].to_string(), false, "0u"};
  g.b = {1, "w", a.in[1].to_string(), true, "0u"};
  if (a.in.size() > 2) {
    g.bias_slot = 2;
    g.bias_name = "bias";
  }
  g.out_slot = static_cast<int>(a.in.size());
  g.out_dtype = a.out[0].dtype;
  return program_of(gemm_steps(a, g, error, a.in[0].numel(), true));
}

// ffn_swiglu: hg = silu(x Wg^T) (scratch 0); h = hg * (x Wu^T) (scratch 1); y = h Wd^T.
// ffn_gelu:   h = gelu(x W1^T + b1) (scratch 0); y = h W2^T + b2.
std::optional<Program> emit_ffn(const KernelArgs& a, std::string& error) {
  if (!fits(a, error)) return std::nullopt;
  bool swiglu = a.op.name == "ffn_swiglu";
  std::uint64_t rows = rows_of(a.in[0].shape), D = a.in[0].shape.back(), H = a.in[1].shape[0];
  int n_in = static_cast<int>(a.in.size());
  int out = n_in, s0 = n_in + 1, s1 = n_in + 2;
  Program p;
  p.scratch_words = {rows * H};
  if (rows * H * 4 > a.caps.max_binding) {
    error = "the hidden activations exceed one binding";
    return std::nullopt;
  }
  auto add = [&](GemmSpec g) -> bool {
    auto st = gemm_step(a, g, error);
    if (!st) return false;
    p.steps.push_back(std::move(*st));
    return true;
  };
  std::string xw = a.in[0].to_string();
  if (swiglu) {
    p.scratch_words.push_back(rows * H);
    GemmSpec g1{"gate: silu(x Wg^T) into scratch", rows, H, D, 1, {0, "x", xw, false, "0u"}, {1, "w_gate", a.in[1].to_string(), true, "0u"}};
    g1.out_slot = s0;
    g1.epilogue = "silu_r(v)";
    g1.epilogue_helpers = {"silu_r"};
    GemmSpec g2{"up: hg * (x Wu^T) into scratch", rows, H, D, 1, {0, "x", xw, false, "0u"}, {2, "w_up", a.in[2].to_string(), true, "0u"}};
    g2.out_slot = s1;
    g2.extra = {{s0, "hg", "silu(x Wg^T) from dispatch 1"}};
    g2.epilogue = "hg[i * N + j] * v";
    GemmSpec g3{"down: h Wd^T", rows, a.in[3].shape[0], H, 1, {s1, "h", "hidden activations (f32)", false, "0u"},
                {3, "w_down", a.in[3].to_string(), true, "0u"}};
    g3.out_slot = out;
    g3.out_dtype = a.out[0].dtype;
    if (!add(g1) || !add(g2) || !add(g3)) return std::nullopt;
  } else {
    bool tanh_form = a.attrs.string("approximate") == "tanh";
    GemmSpec g1{"h = gelu(x W1^T + b1) into scratch", rows, H, D, 1, {0, "x", xw, false, "0u"}, {1, "w1", a.in[1].to_string(), true, "0u"}};
    g1.out_slot = s0;
    if (a.in.size() > 3) {
      g1.bias_slot = 3;
      g1.bias_name = "b1";
    }
    g1.epilogue = tanh_form ? "gelu_tanh_r(v)" : "gelu_r(v)";
    g1.epilogue_helpers = {tanh_form ? "gelu_tanh_r" : "gelu_r"};
    GemmSpec g2{"y = h W2^T + b2", rows, a.in[2].shape[0], H, 1, {s0, "h", "hidden activations (f32)", false, "0u"},
                {2, "w2", a.in[2].to_string(), true, "0u"}};
    g2.out_slot = out;
    g2.out_dtype = a.out[0].dtype;
    if (a.in.size() > 4) {
      g2.bias_slot = 4;
      g2.bias_name = "b2";
    }
    if (!add(g1) || !add(g2)) return std::nullopt;
  }
  return p;
}

}  // namespace

void register_linalg_emitters(std::map<std::string, EmitterEntry>& t) {
  t["matmul"] = {emit_matmul, ops::kFloat32Like};
  t["linear"] = {emit_linear, ops::kFloat32Like};
  t["ffn_swiglu"] = {emit_ffn, ops::kFloat32Like};
  t["ffn_gelu"] = {emit_ffn, ops::kFloat32Like};
}

}  // namespace rung::webgpu
