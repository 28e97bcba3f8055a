#include "backends/webgpu/wgsl/emit_map.h"

#include <algorithm>

namespace rung::webgpu {

std::string input_name(const KernelArgs& a, std::size_t i) {
  const auto& ops = a.op.operands;
  if (i < ops.size() && ops[i].arity != ops::Arity::variadic) return ops[i].name;
  std::size_t first_var = ops.size() - 1;
  return ops.back().name + std::to_string(i - first_var);
}

std::optional<std::vector<Step>> map_steps(const KernelArgs& a, const MapSpec& spec, std::string& error) {
  const TensorDesc& out = a.out[spec.output];
  const std::uint64_t n = out.numel();
  const std::uint64_t word = 4;
  // Elements per window: a multiple of the offset alignment (in elements) that fits a binding.
  std::uint64_t align_elems = std::max<std::uint64_t>(1, a.caps.offset_alignment / word);
  std::uint64_t window = n;
  if (n * word > a.caps.max_binding) window = a.caps.max_binding / word / align_elems * align_elems;
  for (std::size_t i = 0; i < a.in.size(); ++i) {
    bool aligned = std::find(spec.aligned.begin(), spec.aligned.end(), static_cast<int>(i)) != spec.aligned.end();
    if (!aligned && device_words(a.in[i].dtype, a.in[i].shape) * word > a.caps.max_binding) {
      error = "input `" + input_name(a, i) + "` (" + a.in[i].to_string() +
              ") exceeds the device's maxStorageBufferBindingSize and this kernel cannot split it";
      return std::nullopt;
    }
  }
  std::vector<Step> steps;
  for (std::uint64_t base = 0; base < n || (n == 0 && steps.empty()); base += window) {
    std::uint64_t count = std::min(window, n - base);
    std::string title = spec.title;
    if (window < n) title += " (elements " + std::to_string(base) + ".." + std::to_string(base + count) + " of " + std::to_string(n) + ")";
    Module m(a, title);
    for (const auto& c : spec.comments) m.comment(c);
    if (window < n)
      m.comment("split: the output exceeds maxStorageBufferBindingSize, so it is written in windows of " +
                std::to_string(window) + " elements");
    std::string loaders;
    for (std::size_t i = 0; i < a.in.size(); ++i) {
      bool aligned = std::find(spec.aligned.begin(), spec.aligned.end(), static_cast<int>(i)) != spec.aligned.end();
      std::string name = input_name(a, i);
      Scalar s = scalar_of(a.in[i].dtype);
      Binding w;
      std::uint64_t off = 0;
      if (aligned && window < n) {
        w.offset = base * word;
        w.size = count * word;
        off = base;
      }
      m.bind(static_cast<int>(i), name, s, false, a.in[i].to_string(), w);
      std::string t(wgsl_type(s));
      loaders += "fn ld_" + name + "(element: u32) -> " + t + " { return " + name + "[element" + (off ? " - " + u32_lit(off) : "") + "]; }\n";
    }
    Binding ow;
    if (window < n) {
      ow.offset = base * word;
      ow.size = count * word;
    }
    std::string oname = "out_" + a.op.results[spec.output].name;
    m.bind(static_cast<int>(a.in.size() + spec.output), oname, scalar_of(out.dtype), true, out.to_string(), ow);
    if (spec.status_slot >= 0) m.bind(spec.status_slot, "status", Scalar::u32, true, "status word: nonzero = data refused");
    m.constant("BASE", base);
    m.constant("COUNT", count);
    for (const auto& h : spec.helpers) m.use(h);
    std::string fit = fit_function(m, out.dtype);
    m.code(loaders);
    for (const auto& c : spec.extra_code) m.code(c);
    m.code(spec.value_fn);
    const std::uint32_t wg = 64;
    std::string body =
        "  let j = gid.x + gid.y * nwg.x * 64u;  // this invocation's element within the window\n"
        "  if (j >= COUNT) { return; }\n"
        "  " + oname + "[j] = " + fit + "(value(BASE + j));\n";
    steps.push_back(m.finish(body, wg, grid_for(count, wg, a.caps)));
    if (n == 0) break;
  }
  return steps;
}

std::optional<std::vector<RowWindow>> row_windows(const DeviceCaps& caps, std::uint64_t blocks, std::uint64_t block_words,
                                                  std::uint64_t rows_per_block, std::string& error) {
  const std::uint64_t align = std::max<std::uint32_t>(4, caps.offset_alignment) / 4, cap = caps.max_binding / 4;
  if (blocks * block_words <= cap) return std::vector<RowWindow>{RowWindow{0, blocks * rows_per_block, 0, blocks * block_words, false}};
  std::uint64_t per = cap > align ? (cap - align) / std::max<std::uint64_t>(block_words, 1) : 0;
  if (per == 0) {
    error = "one row block (" + std::to_string(block_words * 4) + " bytes) exceeds maxStorageBufferBindingSize";
    return std::nullopt;
  }
  std::vector<RowWindow> w;
  for (std::uint64_t b0 = 0; b0 < blocks; b0 += per) {
    std::uint64_t nb = std::min(per, blocks - b0), base = b0 * block_words / align * align;
    w.push_back(RowWindow{b0 * rows_per_block, nb * rows_per_block, base, (b0 + nb) * block_words - base, true});
  }
  return w;
}

std::optional<Program> map_program(const KernelArgs& a, const MapSpec& spec, std::string& error) {
  auto steps = map_steps(a, spec, error);
  if (!steps) return std::nullopt;
  Program p;
  p.steps = std::move(*steps);
  return p;
}

}  // namespace rung::webgpu
