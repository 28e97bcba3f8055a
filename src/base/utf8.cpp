#include "base/utf8.h"

namespace rung::utf8 {

std::size_t decode(std::string_view s, std::size_t pos, char32_t& cp) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const std::size_t n = s.size();
  if (pos >= n) return 0;
  unsigned char b0 = byte(pos);
  if (b0 < 0x80) { cp = b0; return 1; }
  std::size_t len;
  char32_t min;
  if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min = 0x80; }
  else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min = 0x800; }
  else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min = 0x10000; }
  else return 0;
  if (pos + len > n) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::size_t first_invalid(std::string_view s) {
  std::size_t pos = 0;
  char32_t cp;
  while (pos < s.size()) {
    std::size_t len = decode(s, pos, cp);
    if (len == 0) return pos;
    pos += len;
  }
  return s.size();
}

bool is_valid(std::string_view s) { return first_invalid(s) == s.size(); }

std::string scrub(std::string_view s) {
  std::size_t pos = first_invalid(s);
  if (pos == s.size()) return std::string(s);
  std::string out(s.substr(0, pos));
  char32_t cp;
  while (pos < s.size()) {
    std::size_t len = decode(s, pos, cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++pos;
    } else {
      out.append(s.substr(pos, len));
      pos += len;
    }
  }
  return out;
}

}  // namespace rung::utf8
