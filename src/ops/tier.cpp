#include "ops/tier.h"

namespace rung::ops {

std::string_view tier_name(Tier t) {
  switch (t) {
    case Tier::debug: return "debug";
    case Tier::prod: return "prod";
    case Tier::fast: return "fast";
  }
  return "?";
}

std::string_view tol_class_name(TolClass c) {
  switch (c) {
    case TolClass::exact: return "exact";
    case TolClass::tight: return "tight";
    case TolClass::default_: return "default";
    case TolClass::loose: return "loose";
  }
  return "?";
}

std::optional<Tier> tier_from_name(std::string_view s) {
  for (Tier t : kAllTiers)
    if (tier_name(t) == s) return t;
  return std::nullopt;
}

std::optional<TolClass> tol_class_from_name(std::string_view s) {
  for (TolClass c : kAllClasses)
    if (tol_class_name(c) == s) return c;
  return std::nullopt;
}

}  // namespace rung::ops
