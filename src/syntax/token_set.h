// A set of token kinds as a 128-bit mask: the parser's FIRST sets and recovery sets.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "syntax/syntax_kind.h"

namespace rung::syntax {

class TokenSet {
 public:
  constexpr TokenSet() = default;
  constexpr TokenSet(std::initializer_list<SyntaxKind> kinds) {
    for (SyntaxKind k : kinds) add(k);
  }
  constexpr TokenSet operator|(TokenSet o) const {
    TokenSet r;
    r.lo_ = lo_ | o.lo_;
    r.hi_ = hi_ | o.hi_;
    return r;
  }
  constexpr bool contains(SyntaxKind k) const {
    auto i = static_cast<unsigned>(k);
    if (i >= 128) return false;
    return i < 64 ? (lo_ >> i) & 1u : (hi_ >> (i - 64)) & 1u;
  }

 private:
  constexpr void add(SyntaxKind k) {
    auto i = static_cast<unsigned>(k);
    if (i < 64) lo_ |= std::uint64_t{1} << i;
    else if (i < 128) hi_ |= std::uint64_t{1} << (i - 64);
  }
  std::uint64_t lo_ = 0, hi_ = 0;
};

}  // namespace rung::syntax
