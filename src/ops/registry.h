// The op registry: every built-in op (OpDef) and, per backend, the kernels registered
// against op ids. Conformance enumerates registry x backends; `missing_kernels` is the
// question "which ops does backend X still lack", answered from day one.
//
// Families register themselves by file name: src/ops/family_<name>.cpp defines
// `void register_family_<name>(OpRegistry&)`, and the build generates the list of calls
// (no hand-kept list to edit). The built-in registry is filled on first use.
#pragma once

#include <any>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "ops/op_def.h"

namespace rung::ops {

// Codes are stable (run records name them).
enum class Backend : std::uint8_t { reference = 0, cpu = 1, cuda = 2, webgpu = 3, wasm = 4 };
inline constexpr Backend kAllBackends[] = {Backend::reference, Backend::cpu, Backend::cuda, Backend::webgpu,
                                           Backend::wasm};
std::string_view backend_name(Backend b);
std::optional<Backend> backend_from_name(std::string_view s);

// A backend's kernel for one op. `fn` holds whatever callable type that backend uses (the
// registry never calls it); `exact` says the kernel implements the op's exact definition
// (usable in tier debug), `dtypes` which element types it covers.
struct KernelEntry {
  std::string name;
  std::any fn;
  DTypeSet dtypes;
  bool exact = true;
};

class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // Adds an op. Declaration mistakes (duplicate name or id, an operand naming an unknown type
  // variable, no shape rule or reference kernel) are bugs in rung: RUNG_CHECKed. The reference
  // kernel is registered as the op's kernel on Backend::reference.
  const OpDef& add(OpDef def);

  const OpDef* find(std::string_view name) const;
  const OpDef* find(OpId id) const;
  // All ops, sorted by name.
  std::vector<const OpDef*> all() const;
  std::size_t size() const { return ops_.size(); }

  // Kernels. Registering twice for the same (op, backend) replaces the entry.
  void register_kernel(OpId op, Backend backend, KernelEntry entry);
  const KernelEntry* kernel(OpId op, Backend backend) const;
  std::vector<Backend> backends_with_kernel(OpId op) const;
  // Ops without a kernel on `backend`, sorted by name.
  std::vector<const OpDef*> missing_kernels(Backend backend) const;

  // The autodiff layer fills this slot.
  void set_gradient(OpId op, const GradientRule* rule);

  // Used while a family registers: stamps OpDef::family.
  void set_current_family(std::string family) { family_ = std::move(family); }

 private:
  std::vector<std::unique_ptr<OpDef>> ops_;
  std::map<std::string, OpDef*, std::less<>> by_name_;
  std::map<OpId, OpDef*> by_id_;
  std::map<std::pair<OpId, Backend>, KernelEntry> kernels_;
  mutable std::mutex kernels_mutex_;
  std::string family_;
};

// The built-in ops (every family file), registered on first call; thread-safe.
OpRegistry& op_registry();

// Registers every built-in family into `r` (op_registry() calls this once; tests may build
// a private registry with it).
void register_builtin_families(OpRegistry& r);

}  // namespace rung::ops
