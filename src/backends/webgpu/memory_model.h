// The WebGPU backend's buffers for the memory plan (runtime/memory_model.h), as the executor
// allocates them (executor.cpp, device.cpp): one 32-bit word per element (q8_0/q4_0 their
// block bytes) rounded up to 4 bytes, at least 4; the scratch buffers of the op's generated
// program (statistics, status words) and a 4-byte staging buffer to read a status back; a
// MAP_READ staging buffer of the result's size for every region result read back.
#pragma once

namespace rung::webgpu {

// Registers the model under "webgpu" (idempotent).
void register_webgpu_memory_model();

}  // namespace rung::webgpu
