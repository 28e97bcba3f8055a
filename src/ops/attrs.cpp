#include "ops/attrs.h"

#include "base/check.h"

namespace rung::ops {

std::string AttrSpec::to_string() const {
  std::string s = name + ": " + std::string(attr_kind_name(kind));
  if (!choices.empty()) {
    s += " {";
    for (std::size_t i = 0; i < choices.size(); ++i) s += (i ? "|" : "") + choices[i];
    s += "}";
  }
  if (presence == AttrPresence::optional) s += "?";
  if (presence == AttrPresence::defaulted) s += " = " + default_value->to_string();
  return s;
}

const AttrValue& Attrs::value(std::string_view name) const {
  auto it = map_.find(std::string(name));
  RUNG_CHECK(it != map_.end(), "attribute read that the op does not declare (or an optional one unchecked)");
  return it->second;
}

template <typename T> static const T& get(const Attrs& a, std::string_view name) {
  const AttrValue& v = a.value(name);
  RUNG_CHECK(v.is<T>(), "attribute kind differs from its declaration");
  return v.as<T>();
}

bool Attrs::boolean(std::string_view n) const { return get<bool>(*this, n); }
std::int64_t Attrs::integer(std::string_view n) const { return get<std::int64_t>(*this, n); }
double Attrs::real(std::string_view n) const { return get<double>(*this, n); }
const std::string& Attrs::string(std::string_view n) const { return get<std::string>(*this, n); }
const std::vector<std::int64_t>& Attrs::integers(std::string_view n) const { return get<std::vector<std::int64_t>>(*this, n); }
const std::vector<double>& Attrs::reals(std::string_view n) const { return get<std::vector<double>>(*this, n); }
DType Attrs::dtype(std::string_view n) const { return get<DType>(*this, n); }

std::optional<AttrMap> resolve_attrs(const std::vector<AttrSpec>& specs, const AttrMap& given,
                                     std::vector<std::string>& errors) {
  std::size_t before = errors.size();
  AttrMap out;
  for (const auto& [name, value] : given) {
    const AttrSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      errors.push_back("unknown attribute `" + name + "`" +
                       (known.empty() ? " (the op takes no attributes)" : " (known: " + known + ")"));
      continue;
    }
    if (value.kind() != spec->kind) {
      errors.push_back("attribute `" + name + "` must be " + std::string(attr_kind_name(spec->kind)) + ", not " +
                       std::string(attr_kind_name(value.kind())));
      continue;
    }
    if (!spec->choices.empty()) {
      bool ok = false;
      for (const auto& c : spec->choices) ok = ok || value.as<std::string>() == c;
      if (!ok) {
        errors.push_back("attribute `" + name + "` = \"" + value.as<std::string>() + "\" is not one of " +
                         spec->to_string());
        continue;
      }
    }
    out.emplace(name, value);
  }
  for (const auto& s : specs) {
    if (out.count(s.name) || given.count(s.name)) continue;
    if (s.presence == AttrPresence::required) errors.push_back("missing required attribute `" + s.to_string() + "`");
    else if (s.presence == AttrPresence::defaulted) out.emplace(s.name, *s.default_value);
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

}  // namespace rung::ops
