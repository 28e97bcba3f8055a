// Floating-point <charconv> (to_chars, from_chars) for every toolchain rung builds with.
//
// Why: libc++ 13 (emscripten 3.1.6, the wasm32 build) has the integer overloads only. Natively
// (libstdc++ 12) these forward to std::to_chars / std::from_chars, so nothing changes there; on
// wasm (or with RUNG_CHARCONV_FALLBACK, so the fallback can be checked natively against
// libstdc++) they are built on the C library, whose printf and strtod are exact (musl):
//   * "%.*e" / "%.*f" give the correctly rounded digits at a precision;
//   * shortest (no precision) tries 1, 2, ... significant digits, the nearest decimal of that
//     length first and its neighbour on the other side of the value next, and takes the first
//     that reads back (strtod / strtof) as the same value: the shortest round-trip form, the
//     closest of that length, as the standard asks;
//   * the plain overload picks fixed or scientific, whichever is shorter (fixed on a tie); a
//     fixed form wider than its digits is the exact integer value, as libstdc++ prints it.
// from_chars(double) accepts the standard's pattern (no '+', no spaces, no hex) and reports
// result_out_of_range, leaving the value as it was, when the text is finite but reads as inf,
// or has a nonzero digit but reads as zero.
#pragma once

#include <charconv>
#include <system_error>

#if defined(__EMSCRIPTEN__) || defined(RUNG_CHARCONV_FALLBACK)
#define RUNG_CHARCONV_USE_FALLBACK 1
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#endif

namespace rung::charconv {

#if !defined(RUNG_CHARCONV_USE_FALLBACK)

template <typename T> std::to_chars_result to_chars(char* first, char* last, T v) { return std::to_chars(first, last, v); }
template <typename T> std::to_chars_result to_chars(char* first, char* last, T v, std::chars_format fmt) {
  return std::to_chars(first, last, v, fmt);
}
template <typename T> std::to_chars_result to_chars(char* first, char* last, T v, std::chars_format fmt, int precision) {
  return std::to_chars(first, last, v, fmt, precision);
}
inline std::from_chars_result from_chars(const char* first, const char* last, double& v) { return std::from_chars(first, last, v); }

#else

namespace detail {

inline std::to_chars_result put(char* first, char* last, const std::string& s) {
  if (static_cast<std::size_t>(last - first) < s.size()) return {last, std::errc::value_too_large};
  std::memcpy(first, s.data(), s.size());
  return {first + s.size(), std::errc()};
}

// Non-finite values as libstdc++ writes them, whatever the format.
inline bool non_finite(double v, std::string& out) {
  if (std::isnan(v)) out = std::signbit(v) ? "-nan" : "nan";
  else if (std::isinf(v)) out = v < 0 ? "-inf" : "inf";
  else return false;
  return true;
}

inline std::string printf_string(const char* fmt, int precision, double v) {
  char buf[400];  // "%.*f" of DBL_MAX at precision <= 60 fits
  int n = std::snprintf(buf, sizeof buf, fmt, precision, v);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), fmt, precision, v);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

struct Decimal {     // |v| = digits[0].digits[1..] x 10^exp; digits has no trailing zeros beyond one
  std::string digits;
  int exp = 0;
};

template <typename T> bool reads_back(const std::string& s, T v) {
  if constexpr (sizeof(T) == 4) return std::strtof(s.c_str(), nullptr) == v;
  else return std::strtod(s.c_str(), nullptr) == v;
}

// Splits "d.ddde+XX" into digits and exponent.
inline Decimal split_e(const std::string& s) {
  Decimal d;
  std::size_t e = s.find('e');
  for (std::size_t i = 0; i < e; ++i)
    if (s[i] != '.') d.digits += s[i];
  d.exp = std::atoi(s.c_str() + e + 1);
  return d;
}

inline std::string join_e(const Decimal& d) {
  std::string s(1, d.digits[0]);
  if (d.digits.size() > 1) s += "." + d.digits.substr(1);
  char ex[16];
  std::snprintf(ex, sizeof ex, "e%c%02d", d.exp < 0 ? '-' : '+', d.exp < 0 ? -d.exp : d.exp);
  return s + ex;
}

// The shortest decimal that reads back as v (v finite, > 0), the closest of that length.
template <typename T> Decimal shortest(T v) {
  const int max_digits = sizeof(T) == 4 ? 9 : 17;
  Decimal best;
  for (int p = 1; p <= max_digits; ++p) {
    std::string s = printf_string("%.*e", p - 1, static_cast<double>(v));
    if (reads_back(s, v)) {
      best = split_e(s);
      break;
    }
    // The nearest p-digit decimal does not read back; its neighbour on the other side of v might.
    Decimal d = split_e(s);
    std::uint64_t m = std::strtoull(d.digits.c_str(), nullptr, 10);
    std::uint64_t lo = 1;
    for (int i = 1; i < p; ++i) lo *= 10;
    bool below = sizeof(T) == 4 ? std::strtof(s.c_str(), nullptr) < v : std::strtod(s.c_str(), nullptr) < v;
    if (below) {
      ++m;
      if (m == lo * 10) m = lo, ++d.exp;
    } else {
      if (m == lo) m = lo * 10 - 1, --d.exp;
      else --m;
    }
    d.digits = std::to_string(m);
    if (reads_back(join_e(d), v)) {
      best = d;
      break;
    }
    if (p == max_digits) best = split_e(printf_string("%.*e", max_digits - 1, static_cast<double>(v)));
  }
  while (best.digits.size() > 1 && best.digits.back() == '0') best.digits.pop_back();
  return best;
}

// d as fixed notation: digits placed around the point, zeros where the digits end. A fixed form
// whose integer part is wider than the digits is printed as v's exact integer value.
template <typename T> std::string fixed_of(const Decimal& d, T v) {
  int n = static_cast<int>(d.digits.size());
  if (d.exp >= n - 1) {
    if (d.exp >= n) return printf_string("%.*f", 0, static_cast<double>(v));
    return d.digits;
  }
  if (d.exp >= 0) return d.digits.substr(0, static_cast<std::size_t>(d.exp) + 1) + "." + d.digits.substr(static_cast<std::size_t>(d.exp) + 1);
  return "0." + std::string(static_cast<std::size_t>(-d.exp - 1), '0') + d.digits;
}

template <typename T> std::to_chars_result shortest_to_chars(char* first, char* last, T v, int fmt) {  // 0 plain, 1 scientific, 2 fixed
  std::string s;
  if (non_finite(static_cast<double>(v), s)) return put(first, last, s);
  std::string sign = std::signbit(v) ? "-" : "";
  T a = std::fabs(v);
  if (a == 0) return put(first, last, sign + (fmt == 1 ? "0e+00" : "0"));
  Decimal d = shortest(a);
  std::string sci = join_e(d);
  if (fmt == 1) return put(first, last, sign + sci);
  std::string fix = fixed_of(d, a);
  if (fmt == 2) return put(first, last, sign + fix);
  return put(first, last, sign + (sci.size() < fix.size() ? sci : fix));
}

}  // namespace detail

template <typename T> std::to_chars_result to_chars(char* first, char* last, T v) { return detail::shortest_to_chars(first, last, v, 0); }
template <typename T> std::to_chars_result to_chars(char* first, char* last, T v, std::chars_format fmt) {
  if (fmt == std::chars_format::scientific) return detail::shortest_to_chars(first, last, v, 1);
  if (fmt == std::chars_format::fixed) return detail::shortest_to_chars(first, last, v, 2);
  return detail::shortest_to_chars(first, last, v, 0);  // general and hex are not used in rung
}
template <typename T> std::to_chars_result to_chars(char* first, char* last, T v, std::chars_format fmt, int precision) {
  std::string s;
  if (detail::non_finite(static_cast<double>(v), s)) return detail::put(first, last, s);
  const char* f = fmt == std::chars_format::fixed ? "%.*f" : "%.*e";  // general and hex are not used in rung
  return detail::put(first, last, detail::printf_string(f, precision < 0 ? 6 : precision, static_cast<double>(v)));
}

inline std::from_chars_result from_chars(const char* first, const char* last, double& v) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  auto word = [&](const char* w) {
    std::size_t n = std::strlen(w);
    if (static_cast<std::size_t>(last - p) < n) return false;
    for (std::size_t i = 0; i < n; ++i)
      if ((p[i] | 0x20) != w[i]) return false;
    return true;
  };
  bool nonzero = false;
  const char* end = nullptr;
  if (word("infinity")) end = p + 8;
  else if (word("inf")) end = p + 3;
  else if (word("nan")) {
    end = p + 3;
    if (end != last && *end == '(') {
      const char* q = end + 1;
      while (q != last && (std::isalnum(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
      if (q != last && *q == ')') end = q + 1;
    }
  } else {
    const char* q = p;
    bool any = false;
    while (q != last && *q >= '0' && *q <= '9') nonzero |= *q != '0', any = true, ++q;
    if (q != last && *q == '.') {
      ++q;
      while (q != last && *q >= '0' && *q <= '9') nonzero |= *q != '0', any = true, ++q;
    }
    if (!any) return {first, std::errc::invalid_argument};
    if (q != last && (*q == 'e' || *q == 'E')) {
      const char* r = q + 1;
      if (r != last && (*r == '+' || *r == '-')) ++r;
      if (r != last && *r >= '0' && *r <= '9') {
        while (r != last && *r >= '0' && *r <= '9') ++r;
        q = r;
      }
    }
    end = q;
  }
  std::string text(first, end);
  errno = 0;
  double x = std::strtod(text.c_str(), nullptr);
  bool finite_text = !(word("inf") || word("nan"));
  if (finite_text && (std::isinf(x) || (x == 0 && nonzero))) return {end, std::errc::result_out_of_range};
  v = x;
  return {end, std::errc()};
}

#endif

}  // namespace rung::charconv
