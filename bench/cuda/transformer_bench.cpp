// The transformer block (transformer_block.h) on the cuda backend: bit-identity with the
// reference on the same inputs (output hashes), then timings of forward + backward at
// B=8, T=1024, D=768, 12 heads, SwiGLU 4x in tier debug (exact kernels) and tier fast
// (cuBLAS matmuls, the flash attention kernel on bf16), CUDA events, median of 5 after a warm-up.
// Two paths run the same template:
//   - op by op: every op a cuda::run_dev call (one kernel or cuBLAS call each);
//   - graph: the block recorded as ONE GraphIR region (block_graph.h), optimized by the default
//     pass pipeline (`rung opt`: inline, fold, simplify, layout, fuse, dce; validated after every
//     pass), run by the cuda backend made through the backend registry at the tier (as
//     `rung run --backend cuda --tier T` makes it) with run_region on device-resident inputs
//     (cuda::run_region_on_device: inputs uploaded once outside the timed part; intermediates
//     never leave the device; fused elementwise calls run as one NVRTC-generated kernel each).
//     Also timed end to end through OpBackend::run_region (host inputs in, host results out).
//   usage: cuda_transformer_bench [check_B check_T check_D check_H]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "bench_die.h"
#include "api/backend_settings.h"
#include "backends/cuda/cuda_context.h"
#include "block_graph.h"
#include "block_inputs.h"
#include "base/hash.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "runtime/backend_registry.h"
#include "transformer_block.h"

using namespace rung;

namespace {

using bench::die;

std::vector<ops::HostTensor> make_inputs(const bench::BlockDims& d, unsigned seed) { return bench::make_block_inputs(d, seed); }

std::string hash_of(const ops::HostTensor& t) {
  return sha3_256(std::span<const std::uint8_t>(t.bytes().data(), t.bytes().size())).short_hex(16);
}

struct Gpu {
  cuda::Context& ctx;
  DiagnosticSink d;
  // Profiling (one extra run): CUDA events around every op, summed per op (matmul per shape).
  bool profile = false;
  std::vector<std::pair<std::string, std::pair<cudaEvent_t, cudaEvent_t>>> marks;
  cuda::DevTensor operator()(const char* op, std::vector<cuda::DevTensor> in, const AttrMap& a) {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    auto s = static_cast<cudaStream_t>(ctx.stream());
    if (profile) {
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      cudaEventRecord(e0, s);
    }
    auto out = cuda::run_dev(ctx, *ops::op_registry().find(op), in, a, d);
    if (!out) die(d, op);
    if (profile) {
      cudaEventRecord(e1, s);
      std::string key = op;
      if (key == "matmul") {
        for (const auto& t : in) {
          key += " [";
          for (std::size_t i = 0; i < t.shape.size(); ++i) key += (i ? "," : "") + std::to_string(t.shape[i]);
          key += "]";
        }
        if (a.count("transpose_a") && a.at("transpose_a").as<bool>()) key += " ta";
        if (a.count("transpose_b") && a.at("transpose_b").as<bool>()) key += " tb";
      }
      marks.push_back({key, {e0, e1}});
    }
    return (*out)[0];
  }
};

// Where one forward + backward spends its time on the device: per op (events around each
// launch sequence), against the wall time of the whole run.
void profile_block(cuda::Context& ctx, const bench::BlockDims& dims, const std::vector<ops::HostTensor>& in, const char* label) {
  DiagnosticSink d;
  std::vector<cuda::DevTensor> dev;
  for (const auto& h : in) dev.push_back(*ctx.upload(h, d));
  Gpu g{ctx, {}};
  (void)bench::transformer_block<cuda::DevTensor>(g, dims, dev);  // warm-up
  if (!ctx.sync(d)) die(d, "sync");
  g.profile = true;
  auto t0 = std::chrono::steady_clock::now();
  (void)bench::transformer_block<cuda::DevTensor>(g, dims, dev);
  if (!ctx.sync(d)) die(d, "sync");
  double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::pair<double, int>> per;
  double total = 0;
  for (auto& [k, ev] : g.marks) {
    float ms = 0;
    cudaEventElapsedTime(&ms, ev.first, ev.second);
    per[k].first += ms;
    per[k].second += 1;
    total += ms;
    cudaEventDestroy(ev.first);
    cudaEventDestroy(ev.second);
  }
  std::vector<std::pair<double, std::string>> rows;
  for (auto& [k, v] : per) rows.push_back({v.first, k + " x" + std::to_string(v.second)});
  std::sort(rows.rbegin(), rows.rend());
  std::printf("\nprofile of one %s run (%zu ops; sum of per-op device time %.2f ms, wall with events %.2f ms)\n", label,
              g.marks.size(), total, wall);
  std::printf("| op (calls) | ms | share |\n|---|---|---|\n");
  for (const auto& [ms, k] : rows)
    if (ms >= 0.05) std::printf("| %s | %.2f | %.1f%% |\n", k.c_str(), ms, 100.0 * ms / total);
}

struct Cpu {
  DiagnosticSink d;
  ops::HostTensor operator()(const char* op, std::vector<ops::HostTensor> in, const AttrMap& a) {
    auto out = ops::evaluate(op, in, a, d);
    if (!out) die(d, op);
    return (*out)[0];
  }
};

std::vector<ops::HostTensor> run_gpu(cuda::Context& ctx, const bench::BlockDims& dims, const std::vector<ops::HostTensor>& in,
                                     double* ms, int reps) {
  DiagnosticSink d;
  std::vector<cuda::DevTensor> dev;
  for (const auto& h : in) dev.push_back(*ctx.upload(h, d));
  Gpu g{ctx, {}};
  auto s = static_cast<cudaStream_t>(ctx.stream());
  std::vector<cuda::DevTensor> out = bench::transformer_block<cuda::DevTensor>(g, dims, dev);  // warm-up
  if (!ctx.sync(d)) die(d, "sync");
  if (ms) {
    std::vector<float> t;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int r = 0; r < reps; ++r) {
      cudaEventRecord(a, s);
      out = bench::transformer_block<cuda::DevTensor>(g, dims, dev);
      cudaEventRecord(b, s);
      if (!ctx.check(cudaEventSynchronize(b), "event", d)) die(d, "timing");
      float x = 0;
      cudaEventElapsedTime(&x, a, b);
      t.push_back(x);
    }
    std::sort(t.begin(), t.end());
    *ms = t[t.size() / 2];
  }
  std::vector<ops::HostTensor> host;
  for (const auto& o : out) host.push_back(*ctx.download(o, d));
  return host;
}

// The block as one GraphIR region: recorded for these inputs' types, then the default pass
// pipeline (validated after every pass). Prints what the pipeline did once per label.
bench::BlockGraph block_graph(const bench::BlockDims& dims, DType dt, const char* label) {
  DiagnosticSink d;
  auto bg = bench::record_block_graph(dims, bench::block_input_types(dims, dt), d);
  if (!bg) die(d, "recording the block graph");
  bench::BlockPassReport rep;
  if (!bench::optimize_block_graph(*bg, rep, d)) die(d, "the pass pipeline on the block graph");
  std::printf("\ngraph %s: %zu nodes recorded -> %zu after the default pipeline (%d iterations, %d graphs validated with op "
              "signatures, all valid); %zu fused elementwise calls holding %zu of %zu elementwise ops; left out: %zu with a "
              "broadcast operand, %zu without a single-use fusible neighbour\n%s",
              label, rep.nodes_before, rep.nodes_after, rep.iterations, rep.validations, rep.fused_calls, rep.fused_ops,
              rep.fusible_family_ops, rep.unfused_broadcast, rep.unfused_other, format_stats(rep.stats).c_str());
  return std::move(*bg);
}

struct GraphRun {
  std::vector<ops::HostTensor> out;
  double ms = 0;                    // run_region_on_device, inputs resident (median)
  double ms_transfers = 0;          // OpBackend::run_region, host in and out (median of 3)
  std::uint64_t one_kernel = 0;     // fused calls per run that ran as one generated kernel
  std::uint64_t op_by_op = 0;       // ... and that ran node by node
  std::string failed;               // non-empty: what failed (the op-by-op figures still print)
};

std::string first_diag(const DiagnosticSink& d) {
  return d.all().empty() ? "no diagnostic" : d.all()[0].code + " " + d.all()[0].message;
}

// The region on a cuda backend made at its tier through the registry (null: it could not be
// made). reps == 0: one run (for the bit-identity check), no timing.
GraphRun run_graph(runtime::OpBackend* be, const bench::BlockGraph& bg, const std::vector<ops::HostTensor>& in, int reps) {
  GraphRun r;
  if (!be) {
    r.failed = "no cuda backend";
    return r;
  }
  DiagnosticSink d;
  auto fail = [&](const char* what) {
    r.failed = std::string(what) + ": " + first_diag(d);
    r.out.clear();
    return r;
  };
  cuda::Context& ctx = cuda::context_of(*be);
  std::vector<cuda::DevTensor> dev;
  for (const auto& h : in) {
    auto t = ctx.upload(h, d);
    if (!t) return fail("upload");
    dev.push_back(std::move(*t));
  }
  std::uint64_t one0 = ctx.fused_one_kernel, obo0 = ctx.fused_op_by_op;
  auto out = cuda::run_region_on_device(*be, bg.graph, bg.region(), dev, d);  // warm-up: NVRTC compiles here
  if (!out) return fail("run_region");
  r.one_kernel = ctx.fused_one_kernel - one0;
  r.op_by_op = ctx.fused_op_by_op - obo0;
  if (reps > 0) {
    auto s = static_cast<cudaStream_t>(ctx.stream());
    std::vector<float> t;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < reps && r.failed.empty(); ++i) {
      cudaEventRecord(a, s);
      out = cuda::run_region_on_device(*be, bg.graph, bg.region(), dev, d);
      cudaEventRecord(b, s);
      if (!out) fail("run_region");
      else if (!ctx.check(cudaEventSynchronize(b), "event", d)) fail("timing");
      float x = 0;
      cudaEventElapsedTime(&x, a, b);
      t.push_back(x);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (!r.failed.empty()) return r;
    std::sort(t.begin(), t.end());
    r.ms = t[t.size() / 2];
    std::vector<double> w;
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (!be->run_region(bg.graph, bg.region(), in, d)) return fail("run_region with transfers");
      w.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(w.begin(), w.end());
    r.ms_transfers = w[1];
  }
  for (const auto& o : *out) {
    auto h = ctx.download(o, d);
    if (!h) return fail("download");
    r.out.push_back(std::move(*h));
  }
  return r;
}

// The fused regions the backend generated kernels for: how many distinct kernels, and every
// region that ran op by op with the generator's reason.
std::string kernel_summary(const runtime::OpBackend& be) {
  std::set<std::string> kernels;
  std::string detours;
  for (const auto& [region, k] : be.generated_kernels()) {
    if (k.rfind("op by op", 0) == 0) detours += "; " + region + ": " + k;
    else kernels.insert(k);
  }
  return std::to_string(kernels.size()) + " distinct generated kernels" + detours;
}

std::unique_ptr<runtime::OpBackend> cuda_backend(ops::Tier tier) {
  DiagnosticSink d;
  auto be = runtime::backend_registry().create("cuda", tier, d, api::backend_settings(Environment::from_process()));
  if (!be) std::printf("FAILED: the cuda backend (tier %s): %s\n", std::string(ops::tier_name(tier)).c_str(), first_diag(d).c_str());
  return be;
}

// One table row of a graph run: its time and `notes`, or what failed.
void graph_row(const char* tier, const GraphRun& g, const std::string& notes) {
  if (!g.failed.empty()) {
    std::printf("| %s | graph | FAILED | %s |\n", tier, g.failed.c_str());
    return;
  }
  std::printf("| %s | graph | %.2f | %s; fused calls per run: %llu one kernel, %llu op by op; with transfers %.2f ms |\n", tier,
              g.ms, notes.c_str(), (unsigned long long)g.one_kernel, (unsigned long long)g.op_by_op, g.ms_transfers);
}

// Worst normwise difference of `got` (any float dtype) against `want` (f32), and its output.
std::pair<double, std::string> worst_vs(const std::vector<ops::HostTensor>& got, const std::vector<ops::HostTensor>& want) {
  auto names = bench::block_output_names();
  std::pair<double, std::string> worst{0.0, ""};
  for (std::size_t i = 0; i < got.size(); ++i) {
    ops::HostTensor w(DType::f32, got[i].shape());
    for (std::uint64_t j = 0; j < w.numel(); ++j) w.store_f32(j, got[i].load_f32(j));
    auto v = ops::compare(w, want[i], ops::TolClass::loose, ops::Tier::fast);
    if (v.normwise >= worst.first) worst = {v.normwise, names[i]};
  }
  return worst;
}

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", v);
  return b;
}

int count_identical(const std::vector<ops::HostTensor>& a, const std::vector<ops::HostTensor>& b) {
  int n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) n += a[i].identical(b[i]);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  bench::BlockDims small{2, 64, 128, 4, 512};
  if (argc >= 5) small = {std::strtoull(argv[1], nullptr, 10), std::strtoull(argv[2], nullptr, 10),
                          std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10), 0};
  small.F = 4 * small.D;
  DiagnosticSink d;
  auto ctx = cuda::Context::create(ops::Tier::debug, d);
  if (!ctx) die(d, "cuda context");
  auto fast = cuda::Context::create(ops::Tier::fast, d);
  std::printf("device: %s\n", ctx->profile().to_string().c_str());

  // 1. Bit-identity with the reference (scalar oracle on the host) on the same inputs: op by
  // op, and the block as one region through the cuda backend's run_region (tier debug).
  auto in = make_inputs(small, 7);
  auto t0 = std::chrono::steady_clock::now();
  Cpu cpu;
  auto ref = bench::transformer_block<ops::HostTensor>(cpu, small, in);
  double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto got = run_gpu(*ctx, small, in, nullptr, 0);
  auto dbg = cuda_backend(ops::Tier::debug);
  GraphRun gs = run_graph(dbg.get(), block_graph(small, DType::f32, "at the check size (f32)"), in, 0);
  auto names = bench::block_output_names();
  int same = 0, graph_same = 0;
  std::printf("\nbit-identity, B=%llu T=%llu D=%llu H=%llu F=%llu (reference on the host: %.1f s)\n",
              (unsigned long long)small.B, (unsigned long long)small.T, (unsigned long long)small.D,
              (unsigned long long)small.H, (unsigned long long)small.F, cpu_s);
  std::printf("| output | reference sha3 | cuda debug op by op sha3 | identical | cuda debug graph sha3 | identical |\n"
              "|---|---|---|---|---|---|\n");
  for (std::size_t i = 0; i < ref.size(); ++i) {
    bool ok = ref[i].identical(got[i]), gok = i < gs.out.size() && ref[i].identical(gs.out[i]);
    same += ok;
    graph_same += gok;
    std::printf("| %s | %s | %s | %s | %s | %s |\n", names[i].c_str(), hash_of(ref[i]).c_str(), hash_of(got[i]).c_str(),
                ok ? "yes" : "NO", i < gs.out.size() ? hash_of(gs.out[i]).c_str() : "-", gok ? "yes" : "NO");
  }
  std::printf("identical outputs: op by op %d of %zu, graph %d of %zu (fused calls per run: %llu as one kernel, %llu op by op)\n",
              same, ref.size(), graph_same, ref.size(), (unsigned long long)gs.one_kernel, (unsigned long long)gs.op_by_op);
  if (!gs.failed.empty()) std::printf("graph path FAILED: %s\n", gs.failed.c_str());

  // 2. Timings at the size.
  bench::BlockDims full{8, 1024, 768, 12, 3072};
  auto fin = make_inputs(full, 8);
  double t_debug = 0, t_fast = 0;
  auto a = run_gpu(*ctx, full, fin, &t_debug, 5);
  auto b = run_gpu(*ctx, full, fin, nullptr, 0);
  int repeat_same = count_identical(a, b);
  bench::BlockGraph full_graph = block_graph(full, DType::f32, "at full size (f32)");
  bench::BlockGraph full_graph_bf16 = block_graph(full, DType::bf16, "at full size (bf16)");
  GraphRun gd = run_graph(dbg.get(), full_graph, fin, 5);
  int graph_vs_ops = count_identical(gd.out, a);
  std::printf("\nB=8 T=1024 D=768 H=12 SwiGLU 4x, forward + backward\n");
  std::printf("graph: run_region on device-resident inputs (uploaded once, outside the timed part), CUDA events; "
              "'with transfers' = OpBackend::run_region from host inputs to host results, wall clock\n");
  std::printf("| tier | path | ms (median of 5) | notes |\n|---|---|---|---|\n");
  std::printf("| debug (exact) | op by op | %.2f | two runs bit-identical: %d/%zu outputs; y sha3 %s, dx sha3 %s |\n", t_debug,
              repeat_same, a.size(), hash_of(a[0]).c_str(), hash_of(a[1]).c_str());
  graph_row("debug (exact)", gd,
            "identical to op by op: " + std::to_string(graph_vs_ops) + "/" + std::to_string(a.size()) + " outputs; " +
                (dbg ? kernel_summary(*dbg) : std::string()));
  if (fast) {
    auto f = run_gpu(*fast, full, fin, &t_fast, 5);
    auto w = worst_vs(f, a);
    std::printf("| fast, f32 tensors (cuBLAS SGEMM) | op by op | %.2f | worst normwise vs debug: %.2e (%s) |\n", t_fast, w.first,
                w.second.c_str());
    auto fst = cuda_backend(ops::Tier::fast);
    GraphRun gf = run_graph(fst.get(), full_graph, fin, 5);
    w = worst_vs(gf.out, a);
    graph_row("fast, f32 tensors (cuBLAS SGEMM)", gf, "worst normwise vs debug: " + sci(w.first) + " (" + w.second + ")");
    // The same program on bf16 tensors: cuBLAS BF16 tensor cores, f32 arithmetic inside
    // every other op, one bf16 rounding per op output.
    std::vector<ops::HostTensor> bin;
    for (const auto& t : fin) {
      ops::HostTensor h(DType::bf16, t.shape());
      for (std::uint64_t i = 0; i < t.numel(); ++i) h.store_f32(i, t.load_f32(i));
      bin.push_back(std::move(h));
    }
    double t_bf = 0;
    auto fb = run_gpu(*fast, full, bin, &t_bf, 5);
    w = worst_vs(fb, a);
    std::printf("| fast, bf16 tensors (cuBLAS BF16, flash attention) | op by op | %.2f | worst normwise vs debug f32: %.2e (%s) |\n",
                t_bf, w.first, w.second.c_str());
    GraphRun gb = run_graph(fst.get(), full_graph_bf16, bin, 5);
    w = worst_vs(gb.out, a);
    graph_row("fast, bf16 tensors (cuBLAS BF16, flash attention)", gb,
              "worst normwise vs debug f32: " + sci(w.first) + " (" + w.second + "); " + (fst ? kernel_summary(*fst) : std::string()));
    // The forward attention composed instead (p kept for the backward), same inputs.
    bench::BlockDims comp = full;
    comp.attention_op = false;
    double c_debug = 0, c_bf = 0;
    (void)run_gpu(*ctx, comp, fin, &c_debug, 5);
    (void)run_gpu(*fast, comp, bin, &c_bf, 5);
    std::printf("| debug, forward attention composed (p kept) | op by op | %.2f | the attention op's program: %.2f |\n", c_debug,
                t_debug);
    std::printf("| fast bf16, forward attention composed (p kept) | op by op | %.2f | the attention op's program: %.2f |\n", c_bf,
                t_bf);
    profile_block(*fast, full, bin, "fast bf16");
  }
  profile_block(*ctx, full, fin, "debug");
  bool ok = same == static_cast<int>(ref.size()) && graph_same == static_cast<int>(ref.size()) &&
            repeat_same == static_cast<int>(a.size()) && graph_vs_ops == static_cast<int>(a.size());
  return ok ? 0 : 1;
}
