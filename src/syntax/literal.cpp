#include "syntax/literal.h"

#include <charconv>

#include "base/charconv.h"

namespace rung::syntax {
namespace {

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

}  // namespace

std::optional<std::uint64_t> int_value(std::string_view text) {
  unsigned radix = 10;
  if (text.size() > 2 && text[0] == '0') {
    char p = static_cast<char>(text[1] | 0x20);
    if (p == 'x' || p == 'b' || p == 'o') {
      radix = p == 'x' ? 16 : p == 'b' ? 2 : 8;
      text.remove_prefix(2);
    }
  }
  std::uint64_t value = 0;
  bool any = false;
  for (char c : text) {
    if (c == '_') continue;
    auto d = static_cast<unsigned>(digit_value(c));
    if (d >= radix) return std::nullopt;
    if (value > (UINT64_MAX - d) / radix) return std::nullopt;
    value = value * radix + d;
    any = true;
  }
  if (!any) return std::nullopt;
  return value;
}

std::optional<double> float_value(std::string_view text) {
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  if (digits.empty() || digits[0] < '0' || digits[0] > '9') return std::nullopt;
  double value = 0;
  auto [end, ec] = charconv::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<std::string> string_value(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= text.size()) return std::nullopt;
    switch (text[i]) {
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '0': out += '\0'; break;
      case 'u': {
        if (i + 1 >= text.size() || text[i + 1] != '{') return std::nullopt;
        std::size_t close = text.find('}', i + 2);
        if (close == std::string_view::npos || close == i + 2 || close - (i + 2) > 6) return std::nullopt;
        char32_t cp = 0;
        for (std::size_t j = i + 2; j < close; ++j) {
          int d = digit_value(text[j]);
          if (d >= 16) return std::nullopt;
          cp = cp * 16 + static_cast<char32_t>(d);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
        append_utf8(out, cp);
        i = close;
        break;
      }
      default: return std::nullopt;
    }
  }
  return out;
}

}  // namespace rung::syntax
