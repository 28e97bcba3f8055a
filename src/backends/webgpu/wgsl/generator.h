// The WGSL generator: op name → emitter (one per op family, emit_*.cpp), each emitter a
// function of the op's tensor types and resolved attributes. `generate` is what the backend
// runs and what `rung show --rung kernel --backend webgpu` prints.
#pragma once

#include <map>

#include "backends/webgpu/wgsl/kernel.h"

namespace rung::webgpu {

struct EmitterEntry {
  Emitter emit;
  ops::DTypeSet dtypes;  // element types of the op's first operand this emitter covers
};

// Every emitter, by op name. Families add theirs in register_*_emitters.
const std::map<std::string, EmitterEntry>& emitters();

void register_elementwise_emitters(std::map<std::string, EmitterEntry>& t);
void register_shape_emitters(std::map<std::string, EmitterEntry>& t);
void register_reduce_emitters(std::map<std::string, EmitterEntry>& t);
void register_linalg_emitters(std::map<std::string, EmitterEntry>& t);
void register_nn_emitters(std::map<std::string, EmitterEntry>& t);
void register_conv_emitters(std::map<std::string, EmitterEntry>& t);
void register_misc_emitters(std::map<std::string, EmitterEntry>& t);
void register_scatter_quant_emitters(std::map<std::string, EmitterEntry>& t);
void register_random_emitters(std::map<std::string, EmitterEntry>& t);
void register_csr_build_emitters(std::map<std::string, EmitterEntry>& t);

// The program for one application, or nullopt with `error`.
std::optional<Program> generate(const KernelArgs& a, std::string& error);

// All steps' WGSL as one text (what `rung show` prints).
std::string program_text(const Program& p);

}  // namespace rung::webgpu
