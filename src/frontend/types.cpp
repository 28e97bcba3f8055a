#include "frontend/types.h"

#include "base/canonical.h"

namespace rung::frontend {
namespace {

constexpr std::string_view kTyDomain{"rung/frontend/type\0", 19};

void encode(const Ty& t, CanonicalWriter& w) {
  w.u8(static_cast<std::uint8_t>(t.kind));
  switch (t.kind) {
    case TyKind::tensor: t.tensor.encode(w); break;
    case TyKind::structure:
      w.str(t.name);
      w.u32(static_cast<std::uint32_t>(t.elems.size()));
      for (std::size_t i = 0; i < t.elems.size(); ++i) {
        w.str(t.field_names[i]);
        encode(t.elems[i], w);
      }
      break;
    case TyKind::tuple:
      w.u32(static_cast<std::uint32_t>(t.elems.size()));
      for (const auto& e : t.elems) encode(e, w);
      break;
    default: break;
  }
}

}  // namespace

Ty Ty::of(TensorType t) {
  Ty r{TyKind::tensor};
  r.tensor = std::move(t);
  return r;
}
Ty Ty::tuple(std::vector<Ty> elems) {
  Ty r{TyKind::tuple};
  r.elems = std::move(elems);
  return r;
}
Ty Ty::structure(std::string name, std::vector<std::string> fields, std::vector<Ty> types) {
  Ty r{TyKind::structure};
  r.name = std::move(name);
  r.field_names = std::move(fields);
  r.elems = std::move(types);
  return r;
}

bool Ty::has_error() const {
  if (kind == TyKind::error) return true;
  for (const auto& e : elems)
    if (e.has_error()) return true;
  return false;
}

Hash256 Ty::id() const {
  CanonicalWriter w;
  w.raw(kTyDomain);
  encode(*this, w);
  return sha3_256(std::span<const std::uint8_t>(w.data()));
}

std::string Ty::to_string() const {
  switch (kind) {
    case TyKind::error: return "{error}";
    case TyKind::unit: return "()";
    case TyKind::string: return "string";
    case TyKind::tensor: return tensor.to_string();
    case TyKind::structure: return name;
    case TyKind::tuple: {
      std::string s = "(";
      for (std::size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i].to_string();
      return s + (elems.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

std::vector<TensorType> Ty::leaves() const {
  if (kind == TyKind::tensor) return {tensor};
  std::vector<TensorType> out;
  for (const auto& e : elems)
    for (auto& l : e.leaves()) out.push_back(std::move(l));
  return out;
}

std::size_t Ty::leaf_count() const {
  if (kind == TyKind::tensor) return 1;
  std::size_t n = 0;
  for (const auto& e : elems) n += e.leaf_count();
  return n;
}

bool same_type(const Ty& a, const Ty& b) { return a.id() == b.id(); }

TensorType substitute(const TensorType& t, const DimMap& m) {
  TensorType r = t;
  for (auto& d : r.shape)
    if (!d.is_static())
      if (auto it = m.find(d.name()); it != m.end()) d = it->second;
  return r;
}

Ty substitute(const Ty& t, const DimMap& m) {
  Ty r = t;
  if (r.kind == TyKind::tensor) r.tensor = substitute(r.tensor, m);
  for (auto& e : r.elems) e = substitute(e, m);
  return r;
}

}  // namespace rung::frontend
