// Loading a program: a .rung source, a .keg file, a workflow .json document or an ONNX model
// (.onnx: rung/onnx.h), from a path or
// from bytes in memory (the studio and the sandbox have no file system). A Module is what the
// file says, its declarations included; Program::compile (program.h) fixes the determinism.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/dtype.h"
#include "rung/export.h"
#include "rung/tensor.h"

namespace rung {

enum class SourceKind { rung, keg, workflow, onnx };

class RUNG_API Source {
 public:
  // A file; its kind from the extension (.rung, .keg, .json, .onnx). A .rung file's imports
  // are looked up next to it, an .onnx model's external data below its folder.
  static Source file(std::string path);
  // Bytes in memory, named (the name appears in diagnostics and records) with their kind.
  static Source text(std::string name, std::string text, SourceKind kind = SourceKind::rung);
  static Source bytes(std::string name, std::span<const std::byte> bytes, SourceKind kind);

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }  // empty for bytes in memory
  bool in_memory() const { return path_.empty(); }
  // The kind; for a file, from its extension (nullopt: C0011 when loaded).
  std::optional<SourceKind> kind() const { return kind_; }
  const std::string& content() const { return content_; }

 private:
  std::string name_, path_, content_;
  std::optional<SourceKind> kind_;
};

struct Param {
  std::string name;  // a struct's fields flattened: "p.w1"; a tuple's elements "t.0"
  std::string type;  // "f32[N, 4]"
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;  // -1 where the extent is symbolic
  std::vector<std::string> dims;    // the dims as written ("N", "4")
};

struct EntryInfo {
  std::string name;
  bool exported = false;  // only exported functions are entry points
  std::vector<Param> params, results;
  std::string tier;  // the function's own tier (`override tier fast;`), else the program's
};

struct LoadOptions {
  // An .onnx model's weights (initializers and constants together); 0: 16 GiB (I0014).
  std::uint64_t max_weight_bytes = 0;
  // An .onnx model's symbolic dims bound to extents at import, "NAME=EXTENT" (`rung import
  // --dim B=8`; C0020 when malformed): shape arithmetic over them then folds.
  std::vector<std::string> dims;
  // An .onnx model's graph inputs bound to values at import (`rung import --bind NAME=FILE.npy`):
  // each becomes a constant instead of a parameter, so shape-like operands computed from it
  // (Reshape's shape, Slice's starts, TopK's k, ...) fold. I0013 for a name the graph has no
  // input of, one bound twice or an initializer; I0011 for a dtype or shape the input does not declare.
  std::vector<std::pair<std::string, Tensor>> bind;
};

class RUNG_API Module {
 public:
  static Result<Module> load(const Source& source, const LoadOptions& options = {});

  const std::string& name() const;  // the module name (`module m;`, the workflow's, the .keg's)
  SourceKind kind() const;
  const Source& source() const;
  // What the file declares: empty where it declares nothing (a bare .keg graph).
  const std::string& declared_tier() const;
  const std::string& declared_tolerance() const;
  std::vector<EntryInfo> functions() const;  // sorted by name, helpers included

  struct Impl;
  explicit Module(std::shared_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace rung
