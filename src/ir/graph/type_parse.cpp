#include "ir/graph/type_parse.h"

#include <cctype>

namespace rung {

std::optional<TensorType> parse_type(std::string_view s, std::string& error) {
  std::size_t p = 0;
  auto skip = [&] { while (p < s.size() && s[p] == ' ') ++p; };
  auto fail = [&](std::string msg) -> std::optional<TensorType> {
    error = msg + " (at character " + std::to_string(p) + " of `" + std::string(s) + "`)";
    return std::nullopt;
  };
  auto ident = [&] {
    std::size_t b = p;
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) ++p;
    return s.substr(b, p - b);
  };
  skip();
  std::string_view dt = ident();
  auto dtype = dtype_from_name(dt);
  if (!dtype) return fail("unknown element type `" + std::string(dt) + "`");
  TensorType t;
  t.dtype = *dtype;
  skip();
  if (p < s.size() && s[p] == '[') {
    ++p;
    skip();
    if (p < s.size() && s[p] == ']') return fail("an empty shape is written without brackets");
    for (;;) {
      skip();
      std::string_view d = ident();
      if (d.empty()) return fail("expected a dimension");
      if (std::isdigit(static_cast<unsigned char>(d[0]))) {
        std::uint64_t v = 0;
        for (char c : d) {
          if (!std::isdigit(static_cast<unsigned char>(c))) return fail("a dimension is a number or a symbol");
          if (v > (UINT64_MAX - 9) / 10) return fail("dimension too large");
          v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        t.shape.push_back(Dim::fixed(v));
      } else {
        t.shape.push_back(Dim::symbol(std::string(d)));
      }
      skip();
      if (p < s.size() && s[p] == ',') { ++p; continue; }
      if (p < s.size() && s[p] == ']') { ++p; break; }
      return fail("expected ',' or ']'");
    }
  }
  skip();
  if (p < s.size() && s[p] == '@') {
    ++p;
    std::string_view m = ident();
    auto space = memspace_from_name(m);
    if (!space) return fail("unknown memory space `" + std::string(m) + "` (host, device, pinned, unified)");
    t.space = *space;
    skip();
  }
  if (p != s.size()) return fail("unexpected text");
  return t;
}

}  // namespace rung
