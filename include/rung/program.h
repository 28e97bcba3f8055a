// A compiled program: validated GraphIR and BlockIR with its determinism fixed. Immutable;
// shared by threads and sessions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"
#include "rung/module.h"

namespace rung {

// Never defaulted: a module's own declarations apply; a value given here overrides them with
// a warning (C0016). Where neither says (a bare .keg graph), the tier is required (C0010) and,
// for prod and fast, the tolerance class too (C0022).
struct CompileOptions {
  std::optional<std::string> tier;       // debug | prod | fast
  std::optional<std::string> tolerance;  // exact | tight | default | loose
  // For tools that run nothing (`rung show`): the tier used where neither the module nor
  // `tier` says; never overrides a declaration.
  std::optional<std::string> fallback_tier;
};

// The names checked (C0012, with the name meant): what compile checks first.
RUNG_API Status check_determinism_names(const CompileOptions& options);

class RUNG_API Program {
 public:
  static Result<Program> compile(const Module& module, const CompileOptions& options);

  const std::string& module_name() const;
  const std::string& tier() const;
  const std::string& tolerance() const;
  std::string fingerprint() const;        // graph and BlockIR together (what `rung run` prints)
  std::string graph_fingerprint() const;  // the GraphIR's alone
  std::string blockir_hash() const;
  std::vector<EntryInfo> entries() const;  // the exported functions, sorted by name
  std::vector<EntryInfo> functions() const;
  // The entry a run takes when none is named: the only exported function (C0013 otherwise),
  // a name checked (X0004 unknown, C0021 not exported).
  Result<EntryInfo> entry(std::string_view name = {}) const;
  const Module& module() const;

  // The whole program as a .keg file (graph, BlockIR), as `rung build` writes it.
  Result<std::vector<std::uint8_t>> serialize() const;

  struct Impl;
  explicit Program(std::shared_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace rung
