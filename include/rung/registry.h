// What this build of rung knows, as values: the op registry (`rung ops`), the tolerance
// table (`rung tolerances`), the devices this machine offers (`rung devices`) and the GraphIR
// passes (`rung opt --list-passes`). Each list comes in a fixed order, so one build always
// describes itself the same way. The backends built in: rung::backends() (session.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/export.h"

namespace rung {

struct OpOperand {
  std::string name;
  std::string type;   // a type variable's name ("T") or a dtype ("i64")
  std::string arity;  // one | optional | variadic
};

struct OpOutput {
  std::string name;
  std::string type;  // "T", "bool", "attr:to"
};

struct OpAttribute {
  std::string name;
  std::string kind;      // int, real, bool, string, ints, reals, dtype, ...
  std::string presence;  // required | optional | default
  std::string doc;
  std::optional<std::string> default_value;  // presence `default`
  std::vector<std::string> choices;          // strings: the allowed values (empty: any)
};

struct OpInfo {
  std::string name;
  std::uint16_t id = 0;  // stable: kernels and receipts are keyed on it
  std::string family, summary;
  std::string signature;  // "add(a: T, b: T) -> (y: T) where T: f32|f16|..."
  std::map<std::string, std::string> type_vars;  // name -> the dtypes it ranges over
  std::vector<OpOperand> operands;
  std::vector<OpOutput> results;
  std::vector<OpAttribute> attributes;
  std::string tolerance_debug, tolerance_prod, tolerance_fast;  // the class per tier
  std::vector<std::string> backends;  // those with a kernel for it
  std::string gradient;               // "rule", "none" or "not differentiable: why"
};

struct OpDtypes {
  std::string op;
  std::vector<std::string> dtypes;
};

struct OpsOptions {
  // A backend's name: only the ops without a kernel there, and the dtypes each of its
  // kernels lacks (C0210 for a name that is no backend).
  std::string missing;
};

struct OpList {
  std::vector<OpInfo> ops;  // in registry order
  std::vector<OpDtypes> missing_dtypes;  // with OpsOptions::missing: ops whose kernel lacks dtypes the op accepts
};

// The op registry, every backend's kernels and every gradient rule of this build registered.
RUNG_API Result<OpList> list_ops(const OpsOptions& options = {});

// One row of the tolerance table: the thresholds a (tier, class, dtype) resolves to. An
// element passes when its bits equal the reference's, both are NaN, its ulp distance is at
// most max_ulp, or |a - r| <= atol + rtol*|r|; a tensor when every element passes and
// ||a - r||/||r|| <= normwise. `bitwise`: nothing but identical bits (the other fields 0).
struct ToleranceEntry {
  std::string tier, tolerance_class, dtype;
  bool bitwise = true;
  double max_ulp = 0, atol = 0, rtol = 0, normwise = 0;
};

// Every row, for the float dtypes, in tier, class, dtype order.
RUNG_API std::vector<ToleranceEntry> tolerances();

// A device the capability probes found.
struct DeviceInfo {
  std::string kind;  // "cpu", "cuda", "webgpu"
  std::string name;
  std::uint32_t compute_units = 0;  // logical cores, SMs, ...
  std::uint64_t memory_bytes = 0;
  std::uint64_t available_bytes = 0;  // free now (0: unknown)
  std::map<std::string, std::string> facts;  // "arch", "features", ...
  std::string description;  // one line for people
};

// Every device every probe finds, the CPU first.
RUNG_API std::vector<DeviceInfo> devices();

struct PassInfo {
  std::string name, summary;
};
struct PassList {
  std::vector<PassInfo> passes;           // every pass, by name as pipelines name them
  std::vector<std::string> default_pipeline;  // what runs when no passes are named
};
RUNG_API PassList pass_list();

}  // namespace rung
