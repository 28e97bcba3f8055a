#include "backends/webgpu/executor.h"

#include <algorithm>
#include <cstring>

#include "backends/webgpu/wgsl/generator.h"
#include "ops/typing.h"

namespace rung::webgpu {

namespace {

bool quantized(DType t) { return t == DType::q8_0 || t == DType::q4_0; }

std::string cache_key(const ops::OpDef& op, std::span<const TensorDesc> in, const AttrMap& attrs) {
  std::string k = op.name + "(";
  for (const auto& t : in) k += t.to_string() + ",";
  return k + ")" + attrs_to_string(attrs);
}

}  // namespace

std::optional<Program> program_for_types(const ops::OpDef& op, std::span<const TensorDesc> inputs, const AttrMap& attrs,
                                         const DeviceCaps& caps, std::vector<TensorDesc>& outputs, DiagnosticSink& diags,
                                         std::optional<std::uint64_t> count) {
  std::vector<TensorType> types;
  for (const auto& t : inputs) {
    TensorType tt;
    tt.dtype = t.dtype;
    for (auto e : t.shape) tt.shape.push_back(Dim::fixed(e));
    types.push_back(tt);
  }
  std::vector<std::string> errors;
  auto typed = ops::infer_types(op, types, attrs, errors);
  if (!typed) {
    auto& d = diags.error("N0011", "`" + op.name + "` cannot be applied to these operands");
    for (auto& e : errors) d.note(e);
    d.note("signature: " + op.signature());
    return std::nullopt;
  }
  // A data-dependent extent is 0 in the first program's descriptors and the count in the second's.
  outputs.clear();
  bool data_sized = false;
  for (const auto& rt : typed->results) {
    TensorDesc d{rt.dtype, {}};
    for (const auto& dim : rt.shape) {
      if (!dim.is_static()) data_sized = true;
      d.shape.push_back(dim.is_static() ? dim.extent() : count.value_or(0));
    }
    outputs.push_back(std::move(d));
  }
  KernelArgs a{op, inputs, outputs, typed->attrs, caps, count};
  std::string error;
  auto p = generate(a, error);
  if (!p) {
    if (error.rfind(kDeviceLacks, 0) == 0) {
      diags.error("A0010", "not supported on this device: " + error.substr(kDeviceLacks.size()))
          .note("the run's declared fallback (a host backend) can take it; `--backend cpu` gives the reference's bits");
      return std::nullopt;
    }
    diags.error("A0011", "no WebGPU kernel: " + error).note("`rung ops --missing webgpu` lists what the WebGPU backend lacks");
    return std::nullopt;
  }
  if (data_sized && !count && p->count_slot < 0) {
    diags.error("A0011", "`" + op.name + "` has a data-dependent result shape and its WGSL program computes no count");
    return std::nullopt;
  }
  return p;
}

Executor::Executor(Device& d) : d_(d) {}

DeviceCaps Executor::caps() const {
  const api::Limits& l = d_.limits();
  DeviceCaps c;
  c.max_binding = l.maxStorageBufferBindingSize;
  c.max_workgroups = l.maxComputeWorkgroupsPerDimension;
  c.max_invocations = l.maxComputeInvocationsPerWorkgroup;
  c.max_workgroup_storage = l.maxComputeWorkgroupStorageSize;
  c.offset_alignment = l.minStorageBufferOffsetAlignment;
  c.fused_fma = fused_fma_;
  return c;
}

std::optional<std::vector<float>> Executor::run_probe(const std::string& wgsl, std::span<const float> in, std::size_t first,
                                                     std::size_t count, DiagnosticSink& diags) {
  GpuBuffer b = d_.create_buffer(in.size_bytes(), diags);
  if (!b) return std::nullopt;
  d_.upload(b, {reinterpret_cast<const std::uint8_t*>(in.data()), in.size_bytes()});
  auto p = d_.pipeline(wgsl, diags);
  if (!p) return std::nullopt;
  BufferRange r{&b, 0, 0};
  if (!d_.dispatch(p, std::span(&r, 1), Workgroups{1, 1, 1}, diags)) return std::nullopt;
  std::vector<float> out(count, 0.0f);
  if (!d_.download(b, first * sizeof(float), {reinterpret_cast<std::uint8_t*>(out.data()), count * sizeof(float)}, diags))
    return std::nullopt;
  return out;
}

bool Executor::probe_fused_fma(DiagnosticSink& diags) {
  // Operands come from a buffer, so no compiler can fold the fma at compile time.
  const std::string wgsl =
      "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
      "@compute @workgroup_size(1)\nfn main() { v[3] = fma(v[0], v[1], v[2]); }\n";
  const float in[4] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f, -(1.0f + 0x1p-11f), 0.0f};  // product 1 + 2^-11 + 2^-24
  auto out = run_probe(wgsl, in, 3, 1, diags);
  if (!out) return false;
  fused_fma_ = (*out)[0] == 0x1p-24f;
  return probe_subnormals(diags);
}

bool Executor::probe_subnormals(DiagnosticSink& diags) {
  // 2^-130 * 2^10 is 2^-120 (normal) when subnormal operands are kept; 2^-100 * 2^-30 is
  // 2^-130 when subnormal results are. Either being 0 means the device flushes.
  const std::string wgsl =
      "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
      "@compute @workgroup_size(1)\nfn main() { v[4] = v[0] * v[1]; v[5] = v[2] * v[3]; }\n";
  const float in[6] = {0x1p-130f, 0x1p10f, 0x1p-100f, 0x1p-30f, 0.0f, 0.0f};
  auto out = run_probe(wgsl, in, 4, 2, diags);
  if (!out) return false;
  flushes_subnormals_ = (*out)[0] != 0x1p-120f || (*out)[1] != 0x1p-130f;
  return true;
}

std::optional<Program> Executor::program_for(const ops::OpDef& op, std::span<const TensorDesc> inputs, const AttrMap& attrs,
                                             std::vector<TensorDesc>& outputs, DiagnosticSink& diags) const {
  return program_for_types(op, inputs, attrs, caps(), outputs, diags);
}

std::optional<DevTensor> Executor::upload(const ops::HostTensor& t, DiagnosticSink& diags) {
  DType dt = t.dtype();
  if (!device_representable(dt)) {
    diags.error("A0010", "f64 tensors cannot run on WebGPU (WGSL has no binary64)").note("use --backend cpu for f64");
    return std::nullopt;
  }
  std::uint64_t n = t.numel();
  std::vector<std::uint8_t> bytes;
  if (quantized(dt)) {
    bytes.assign(t.bytes().begin(), t.bytes().end());
  } else {
    bytes.resize(n * 4);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint32_t w = 0;
      switch (scalar_of(dt)) {
        case Scalar::f32: {
          float f = dt == DType::f32 ? t.raw<float>(i) : t.load_f32(i);
          std::memcpy(&w, &f, 4);
          break;
        }
        case Scalar::i32: {
          std::int64_t v = t.load_i64(i);
          if (v < INT32_MIN || v > INT32_MAX) {
            diags.error("A0010", "element " + std::to_string(i) + " of an i64 tensor (" + std::to_string(v) +
                                     ") does not fit the 32-bit integers of the WebGPU backend");
            return std::nullopt;
          }
          w = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
          break;
        }
        case Scalar::u32: {
          std::uint64_t v = dt == DType::boolean ? (t.load_bool(i) ? 1 : 0) : t.load_u64(i);
          if (v > 0xffffffffull) {
            diags.error("A0010", "element " + std::to_string(i) + " of a u64 tensor (" + std::to_string(v) +
                                     ") does not fit the 32-bit integers of the WebGPU backend");
            return std::nullopt;
          }
          w = static_cast<std::uint32_t>(v);
          break;
        }
      }
      std::memcpy(bytes.data() + i * 4, &w, 4);
    }
  }
  auto buf = std::make_shared<GpuBuffer>(d_.create_buffer(bytes.size(), diags));
  if (!*buf) return std::nullopt;
  if (!bytes.empty()) d_.upload(*buf, bytes);
  return DevTensor{TensorDesc{dt, t.shape()}, std::move(buf)};
}

std::optional<ops::HostTensor> Executor::download(const DevTensor& t, DiagnosticSink& diags) {
  DType dt = t.desc.dtype;
  ops::HostTensor h(dt, t.desc.shape);
  std::uint64_t n = t.desc.numel();
  if (quantized(dt)) {
    if (!d_.download(*t.buffer, 0, h.bytes(), diags)) return std::nullopt;
    return h;
  }
  std::vector<std::uint8_t> bytes(n * 4);
  if (!d_.download(*t.buffer, 0, bytes, diags)) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint32_t w;
    std::memcpy(&w, bytes.data() + i * 4, 4);
    switch (scalar_of(dt)) {
      case Scalar::f32: {
        float f;
        std::memcpy(&f, &w, 4);
        if (dt == DType::f32) h.set_raw<float>(i, f);
        else h.store_f32(i, f);  // already rounded to the format on the device: exact
        break;
      }
      case Scalar::i32:
        h.store_int(i, static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(w))));
        break;
      case Scalar::u32:
        if (dt == DType::boolean) h.store_bool(i, w != 0);
        else h.store_int(i, w);
        break;
    }
  }
  h.canonicalize_nans();
  return h;
}

bool Executor::run_steps(const ops::OpDef& op, const Program& prog, const std::function<const GpuBuffer*(int)>& slot_buffer,
                         DiagnosticSink& diags) {
  for (const Step& st : prog.steps) {
    auto pipe = d_.pipeline(st.wgsl, diags);
    if (!pipe) {
      diags.last().note("kernel: " + op.name + " — " + st.title);
      return false;
    }
    std::vector<BufferRange> b;
    for (const auto& bind : st.bindings) b.push_back(BufferRange{slot_buffer(bind.slot), bind.offset, bind.size});
    if (!d_.dispatch(pipe, b, Workgroups{st.groups.x, st.groups.y, st.groups.z}, diags)) return false;
  }
  return true;
}

std::shared_ptr<Program> Executor::cached_program(const ops::OpDef& op, std::span<const TensorDesc> in, const AttrMap& attrs,
                                                  std::optional<std::uint64_t> count, std::vector<TensorDesc>& outs,
                                                  DiagnosticSink& diags) {
  std::string key = cache_key(op, in, attrs) + (count ? "#count=" + std::to_string(*count) : "");
  auto it = programs_.find(key);
  if (it == programs_.end()) {
    auto p = program_for_types(op, in, attrs, caps(), outs, diags, count);
    if (!p) return nullptr;
    it = programs_.emplace(key, std::make_shared<Program>(std::move(*p))).first;
    out_types_[key] = outs;
  } else {
    outs = out_types_.at(key);
  }
  return it->second;
}

std::optional<std::vector<DevTensor>> Executor::apply(const ops::OpDef& op, std::span<const DevTensor> inputs,
                                                      const AttrMap& attrs, DiagnosticSink& diags) {
  std::vector<TensorDesc> in;
  for (const auto& t : inputs) in.push_back(t.desc);
  std::vector<TensorDesc> outs;
  std::shared_ptr<Program> prog = cached_program(op, in, attrs, std::nullopt, outs, diags);
  if (!prog) return std::nullopt;
  std::vector<DevTensor> outputs;
  for (const auto& d : outs) {
    auto buf = std::make_shared<GpuBuffer>(d_.create_buffer(device_words(d.dtype, d.shape) * 4, diags));
    if (!*buf) return std::nullopt;
    outputs.push_back(DevTensor{d, std::move(buf)});
  }
  // Every output empty: there is nothing to compute, and the kernels' index arithmetic would
  // divide by the zero extents (WGSL refuses `% 0u` in a constant expression). No invocation
  // would run, so an op that checks its data (can_fail) has nothing to check either; an op
  // that sizes its outputs by a count still runs.
  bool all_empty = !outputs.empty() && std::all_of(outputs.begin(), outputs.end(), [](const DevTensor& t) { return t.desc.numel() == 0; });
  if (all_empty && prog->count_slot < 0) return outputs;
  std::vector<GpuBuffer> scratch;
  for (auto words : prog->scratch_words) {
    scratch.push_back(d_.create_buffer(words * 4, diags));
    if (!scratch.back()) return std::nullopt;
  }
  std::vector<GpuBuffer> scratch2;  // the second program's own (data-dependent sizes)
  auto slot_buffer = [&](int slot) -> const GpuBuffer* {
    std::size_t s = static_cast<std::size_t>(slot);
    if (s < inputs.size()) return inputs[s].buffer.get();
    s -= inputs.size();
    if (s < outputs.size()) return outputs[s].buffer.get();
    s -= outputs.size();
    if (s < scratch.size()) return &scratch[s];
    return &scratch2.at(s - scratch.size());
  };
  if (!run_steps(op, *prog, slot_buffer, diags)) return std::nullopt;
  if (prog->can_fail) {
    std::uint32_t status = 0;
    if (!d_.download(scratch.back(), 0, {reinterpret_cast<std::uint8_t*>(&status), 4}, diags)) return std::nullopt;
    if (status != 0) {
      diags.error(prog->fail_code, "`" + op.name + "` refused its input: " + prog->fail_message);
      return std::nullopt;
    }
  }
  if (prog->count_slot < 0) return outputs;
  // Data-dependent sizes: read the count, size the outputs by it, run the second program.
  std::uint32_t count = 0;
  if (!d_.download(*slot_buffer(prog->count_slot), prog->count_word * 4, {reinterpret_cast<std::uint8_t*>(&count), 4}, diags))
    return std::nullopt;
  std::vector<TensorDesc> outs2;
  std::shared_ptr<Program> fill = cached_program(op, in, attrs, count, outs2, diags);
  if (!fill) return std::nullopt;
  for (int o : prog->sized_by_count) {
    DevTensor& t = outputs.at(static_cast<std::size_t>(o));
    t.desc = outs2.at(static_cast<std::size_t>(o));
    t.buffer = std::make_shared<GpuBuffer>(d_.create_buffer(device_words(t.desc.dtype, t.desc.shape) * 4, diags));
    if (!*t.buffer) return std::nullopt;
  }
  for (auto words : fill->scratch_words) {
    scratch2.push_back(d_.create_buffer(words * 4, diags));
    if (!scratch2.back()) return std::nullopt;
  }
  if (!run_steps(op, *fill, slot_buffer, diags)) return std::nullopt;
  return outputs;
}

}  // namespace rung::webgpu
