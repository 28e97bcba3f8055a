#include "studio_files.h"

#include <system_error>

namespace rung::cli::studio {

namespace fs = std::filesystem;

namespace {

// A segment that would name something other than a child: `..` and `.` (the browser never
// sends them; a crafted request does), empty ones (`//etc/passwd` would join as an absolute
// path), backslashes and NULs (other spellings of a separator or an end).
bool bad_segment(std::string_view s) {
  return s.empty() || s == "." || s == ".." || s.find('\\') != std::string_view::npos ||
         s.find('\0') != std::string_view::npos;
}

bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return q != p.end();
}

}  // namespace

Resolved resolve(const fs::path& root, std::string_view url_path) {
  if (url_path.empty() || url_path.front() != '/') return {400, {}};
  std::string_view rest = url_path.substr(1);
  if (rest.empty()) rest = "index.html";
  fs::path file = root;
  for (;;) {
    auto slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    if (bad_segment(seg)) return {400, {}};
    file /= std::string(seg);
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  std::error_code ec;
  fs::path real = fs::canonical(file, ec);  // follows links: one that points out is refused
  if (ec || !inside(root, real) || !fs::is_regular_file(real, ec)) return {404, {}};
  return {200, real};
}

std::string content_type(const fs::path& file) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript"},   {".mjs", "text/javascript"},
      {".css", "text/css"},                  {".json", "application/json"}, {".map", "application/json"},
      {".wasm", "application/wasm"},         {".svg", "image/svg+xml"},     {".png", "image/png"},
      {".ico", "image/x-icon"},              {".txt", "text/plain; charset=utf-8"}, {".woff2", "font/woff2"},
  };
  std::string ext = file.extension().string();
  for (const auto& [e, type] : kTypes)
    if (ext == e) return type;
  return "application/octet-stream";
}

}  // namespace rung::cli::studio
