// The front end's semantic types: tensors (GraphIR TensorTypes with static and symbolic
// dims), tuples, structs, strings (only as literal arguments of print/read_csv) and unit.
// Identity is structural: two types are the same exactly when the SHA3-256 of their
// canonical encodings are equal (same_type compares those hashes, nothing else).
// A value of a compound type flattens into its tensor leaves in declaration order; that
// order is how structs and tuples become several GraphIR params/results or BlockIR slots.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/hash.h"
#include "ir/graph/type.h"

namespace rung::frontend {

enum class TyKind : std::uint8_t { error = 0, unit = 1, tensor = 2, tuple = 3, structure = 4, string = 5 };

struct Ty {
  TyKind kind = TyKind::error;
  TensorType tensor;                     // kind tensor
  std::string name;                      // kind structure: the struct's name
  std::vector<std::string> field_names;  // kind structure
  std::vector<Ty> elems;                 // tuple elements or struct field types

  static Ty error() { return {}; }
  static Ty unit() { return Ty{TyKind::unit}; }
  static Ty string() { return Ty{TyKind::string}; }
  static Ty of(TensorType t);
  static Ty tuple(std::vector<Ty> elems);
  static Ty structure(std::string name, std::vector<std::string> fields, std::vector<Ty> types);

  bool is_error() const { return kind == TyKind::error; }
  bool is_tensor() const { return kind == TyKind::tensor; }
  // Error anywhere inside: diagnostics about it were already given.
  bool has_error() const;
  Hash256 id() const;
  std::string to_string() const;
  // The tensor leaves, flattened in order.
  std::vector<TensorType> leaves() const;
  std::size_t leaf_count() const;
};

bool same_type(const Ty& a, const Ty& b);

using DimMap = std::map<std::string, Dim>;
// Replaces bound symbols (unbound ones stay).
Ty substitute(const Ty& t, const DimMap& m);
TensorType substitute(const TensorType& t, const DimMap& m);

}  // namespace rung::frontend
