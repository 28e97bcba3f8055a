// Builds one WGSL compute module as readable text: a header comment naming the op, its
// operands and the numeric contract, the bindings (one line each, with the tensor they hold),
// constants, the library functions the body uses (wgsl/library.cpp, each included once), and
// the entry point `main`.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "backends/webgpu/wgsl/kernel.h"

namespace rung::webgpu {

class Module {
 public:
  Module(const KernelArgs& a, std::string title);

  // `var<storage, read>` (input) or `read_write` binding over tensor `slot`; returns its name.
  std::string bind(int slot, std::string name, Scalar s, bool writable, std::string what, Binding window = {});
  void constant(const std::string& name, std::uint64_t value);  // `const NAME: u32 = ...u;`
  void constant_f32(const std::string& name, double value);
  void use(const std::string& helper);  // a library function and its dependencies
  void code(const std::string& text);   // module-scope code (functions), in order
  void comment(const std::string& text);

  // The entry point: `@compute @workgroup_size(wg) fn main(...) { <body> }` where the body
  // sees `gid`, `lid`, `wid` (vec3u) and `nwg` (number of workgroups).
  Step finish(const std::string& body, std::uint32_t workgroup_size, Dispatch groups);

 private:
  const KernelArgs& a_;
  std::string title_;
  std::vector<std::string> comments_, bindings_, constants_, code_;
  std::vector<std::string> helpers_;
  std::set<std::string> helper_set_;
  std::vector<Binding> slots_;
  std::vector<std::string> binding_names_;
};

// WGSL text of a library function (library.cpp) and the names it depends on.
struct LibraryFunction {
  std::vector<std::string> deps;
  std::string text;
};
const LibraryFunction* library_function(const std::string& name);
// Every library function's text, in name order: part of each kernel's hash, so a receipt
// is invalidated when any shared WGSL function changes.
std::string library_text();

// Helpers shared by the emitters.
std::string u32_lit(std::uint64_t v);    // "12u"
std::string f32_lit(double v);            // "1.5f", exact for f32 values; "bitcast<f32>(0x...u)" for inf/NaN
std::string i32_lit(std::int64_t v);
Dispatch grid_for(std::uint64_t invocations, std::uint32_t workgroup_size, const DeviceCaps& caps);
// The store-side fix-up of a result for a dtype: NaN canonicalisation, f16/bf16 rounding,
// narrow-integer wrap-around, bool to 0/1. Returns the WGSL function name (and `use`s it).
std::string fit_function(Module& m, DType t);
// Expression of the flat index into an input of shape `in` broadcast to `out`, from the flat
// output index `i` (numpy rules: dims right-aligned, extent-1 dims stretch).
std::string broadcast_index(const ops::Extents& in, const ops::Extents& out, const std::string& i);
std::vector<std::uint64_t> row_major_strides(const ops::Extents& shape);

}  // namespace rung::webgpu
