// Building programs in code, from the op registry: the face the Python module's `rung.ops`
// and `rung.graph` stand on (docs/python.md). An op applied to values runs the registry's
// type inference at once, so a shape error is reported by the call that built it; equal
// expressions are the same node (the graph is hash-consed). A finished Function is a GraphIR
// region with named parameters and results: it has a fingerprint, saves as a .keg file and
// loads as a Module like any other program. User errors are diagnostics, never exceptions.
//
// Codes: N0010 unknown op, N0011 operands, attributes or shapes that do not fit (as `rung
// eval`), N0012/N0013 a reference kernel refused its data; M0030 a type that does not parse;
// M0031 a value of another builder (or none); M0032 a function that cannot be formed (a
// parameter that is no input, a repeated name, a result depending on an input that is not a
// parameter); M0033 a file that cannot be written; D0001..D0004 from the autodiff layer,
// D0003 also for a `wrt` name that is no parameter; M0034 a program entry that is not one
// graph region (loops cannot be differentiated).
//
// Threads: a Builder (and the Values it made) is used by one thread at a time; Functions are
// immutable and may be shared.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/dtype.h"
#include "rung/export.h"
#include "rung/module.h"
#include "rung/program.h"
#include "rung/tensor.h"

namespace rung::graph {

// ---- The op catalog ----

// An attribute's kind, as the registry declares it. Kinds are strict: an integer attribute
// takes no real (`axis = 1.0` is refused), since kinds are part of every node's hash. Only
// exact widenings are accepted: an integer for a real, integers for reals or for a shape.
enum class AttrKind : std::uint8_t { boolean, integer, real, string, integers, reals, dtype, shape, other };

// A shape attribute's dims as written: "4" or a symbol "B".
using Dims = std::vector<std::string>;
using Attr = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>, DType, Dims>;
using Attrs = std::map<std::string, Attr>;

struct AttrInfo {
  std::string name;
  AttrKind kind = AttrKind::integer;
  std::string kind_name;              // "int", "ints", "real", "dtype", "shape", ...
  bool required = false;              // no default: it must be given
  std::optional<Attr> default_value;  // absent for required and optional attributes
  std::vector<std::string> choices;   // strings: the allowed values (empty: any)
  std::string doc;
  std::string text;                   // "axis: int = -1"
};

enum class Arity : std::uint8_t { one, optional, variadic };

struct OperandInfo {
  std::string name;
  std::string type;  // a type variable ("T") or a dtype ("i64")
  Arity arity = Arity::one;
};

struct OpInfo {
  std::string name, family, summary;
  std::string signature;  // "softmax(x: T) -> (y: T) where T: f32|f16|bf16|f64"
  std::vector<OperandInfo> operands;
  std::vector<std::string> results;
  std::vector<AttrInfo> attrs;
  std::string tolerance_debug, tolerance_prod, tolerance_fast;  // the class the op promises per tier
};

// Every op of the registry, sorted by name.
RUNG_API const std::vector<OpInfo>& ops();
RUNG_API const OpInfo* find_op(std::string_view name);

// One op on concrete tensors, on the reference kernels (what `rung eval` runs, tier debug).
RUNG_API Result<std::vector<Tensor>> evaluate(std::string_view op, std::span<const Tensor> operands, const Attrs& attrs = {});

// ---- Building ----

// One result of an op (or an input, or a constant) in a Builder.
struct Value {
  std::uint64_t builder = 0;  // which builder made it (0: none)
  std::uint32_t node = 0, output = 0;
  bool operator==(const Value&) const = default;
};

struct ValueInfo {
  std::string type;  // "f32[B, 10]"
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;  // -1 where symbolic
  std::vector<std::string> dims;    // as written
  std::string op;                   // "param", "const" or the op's name
  std::string input_name;           // for an input: its name
};

class Function;

// A graph under construction. Copies are handles to the same graph.
class RUNG_API Builder {
 public:
  Builder();

  // A named input of a type written as in the language ("f32[B, 10]", "i64"). The same name
  // and type give the same value.
  Result<Value> input(std::string name, std::string_view type);
  // A constant: the tensor's bytes go into the graph.
  Result<Value> constant(const Tensor& value);
  // Applies an op: operands in the declared order (a variadic operand takes the rest),
  // attributes by name. Returns one value per declared result.
  Result<std::vector<Value>> apply(std::string_view op, std::span<const Value> operands, const Attrs& attrs = {});
  Result<ValueInfo> info(Value v) const;

  // The region computing `results` (named, in order) from `params` (inputs of this
  // builder), as a function named `name`.
  Result<Function> function(std::string name, std::span<const Value> params,
                            const std::vector<std::pair<std::string, Value>>& results) const;

  std::uint64_t id() const;
  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

// A finished function: immutable.
class RUNG_API Function {
 public:
  const std::string& name() const;
  std::string fingerprint() const;  // the GraphIR's (what its .keg file's header holds)
  EntryInfo entry() const;          // parameters and results with their types
  // A .keg file holding the graph and the BlockIR (so the result names survive); it declares
  // no tier: compiling it needs one (C0010), like a bare graph.
  Result<std::vector<std::uint8_t>> serialize() const;
  Status save(const std::string& path) const;
  // The function as a loaded program (through the .keg reader, as `save` then `load` would).
  Result<Module> module() const;

  struct Impl;
  explicit Function(std::shared_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Reverse-mode gradients (src/autodiff): a function `<name>.grad` with f's parameters,
// returning f's results and then d(result 0)/d(p) for each parameter named in `wrt`, named
// "grad.<p>". f's first result must be a floating-point scalar (D0001).
RUNG_API Result<Function> value_and_grad(const Function& f, std::span<const std::string> wrt);
// The same for a compiled program's entry (empty: its only export), when that entry is one
// graph region (M0034 otherwise); the result is compiled at the program's tier and class.
RUNG_API Result<Program> value_and_grad(const Program& p, std::string_view entry, std::span<const std::string> wrt);

}  // namespace rung::graph
