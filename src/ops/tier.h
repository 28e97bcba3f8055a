// Determinism tiers and tolerance classes (SEMANTICS.md "Tiers and tolerance classes").
// The codes are stable: they name classes in run records and conformance receipts.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rung::ops {

enum class Tier : std::uint8_t { debug = 0, prod = 1, fast = 2 };
enum class TolClass : std::uint8_t { exact = 0, tight = 1, default_ = 2, loose = 3 };

inline constexpr Tier kAllTiers[] = {Tier::debug, Tier::prod, Tier::fast};
inline constexpr TolClass kAllClasses[] = {TolClass::exact, TolClass::tight, TolClass::default_, TolClass::loose};

std::string_view tier_name(Tier t);
std::string_view tol_class_name(TolClass c);
std::optional<Tier> tier_from_name(std::string_view s);
std::optional<TolClass> tol_class_from_name(std::string_view s);

// The class an op promises in each tier.
struct TolerancePerTier {
  TolClass debug = TolClass::exact;
  TolClass prod = TolClass::exact;
  TolClass fast = TolClass::exact;
  TolClass in(Tier t) const { return t == Tier::debug ? debug : t == Tier::prod ? prod : fast; }
};

}  // namespace rung::ops
