// The CPU backend: rung's embedded default. Its kernels (registered in the op registry under
// ops::Backend::cpu) vectorise with Google Highway (runtime dispatch: the best target this
// CPU supports) and spread independent outputs over a thread pool; in tier debug every
// result equals the reference's bits (docs/backend-cpu.md says how each family does it).
//
// Diagnostics: H0001 no CPU kernel for an op (never a silent detour to the reference),
// H0002 a region the fused-elementwise executor cannot run, H0003 RUNG_CPU_SIMD names a
// target this build or CPU lacks; kernel failures are the
// registry's N-codes, as on the reference.
#pragma once

#include <memory>

#include "runtime/backend_registry.h"
#include "runtime/op_backend.h"

namespace rung::cpu {

struct CpuOptions {
  unsigned threads = 0;  // 0: every hardware thread
  // Outputs that kernels overwrite entirely are allocated without a zero fill; tests set this
  // to fill them with a junk pattern instead, so a kernel that skips an element shows.
  bool poison_uninitialized = false;
};

std::unique_ptr<runtime::OpBackend> make_cpu_backend(ops::Tier tier, CpuOptions options = {});

// Registers every CPU kernel in the op registry (idempotent; the backend factory calls it).
void register_cpu_kernels();

// The Highway target the dispatched kernels run on now ("AVX3", "AVX2", ...).
std::string simd_target_name();

// The setting RUNG_CPU_SIMD=<target> (a name simd_target_name() can return: AVX3, AVX2, SSE4,
// SSSE3 on x86-64) restricts Highway's dispatch to that target for the whole process, so an
// example can be run and hashed per instruction set; empty: the best target the CPU has.
// False after an H0003 diagnostic (an unknown name, or a target this CPU lacks). The
// backend registry's factory applies the value its settings hold.
bool apply_simd_setting(const std::string& want, DiagnosticSink& diags);

// The thread count the setting RUNG_CPU_THREADS asks for: 1..1024, else 0 (every hardware
// thread). The backend registry's factory passes it as CpuOptions::threads.
unsigned threads_setting(const std::string& value);

}  // namespace rung::cpu

namespace rung::runtime {
void register_cpu_backend(BackendRegistry& r);
}
