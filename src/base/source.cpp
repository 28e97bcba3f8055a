#include "base/source.h"

#include <algorithm>

#include "base/check.h"
#include "base/utf8.h"

namespace rung {

SourceFile::SourceFile(std::string name, std::string text, bool binary)
    : name_(std::move(name)), text_(std::move(text)), binary_(binary) {
  RUNG_CHECK(text_.size() < 0xFFFFFFFFu, "source files are limited to 4 GiB");
  line_starts_.push_back(0);
  if (binary_) return;
  for (std::uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

LineCol SourceFile::line_col(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  std::uint32_t start = line_starts_[line - 1];
  // Column in scalar values; an invalid byte counts as one column.
  std::uint32_t col = 1;
  std::size_t pos = start;
  while (pos < offset) {
    char32_t cp;
    std::size_t len = utf8::decode(text_, pos, cp);
    pos += len == 0 ? 1 : len;
    ++col;
  }
  return {line, col};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  RUNG_CHECK(line >= 1 && line <= line_starts_.size(), "line out of range");
  std::uint32_t start = line_starts_[line - 1];
  std::uint32_t end = line < line_starts_.size() ? line_starts_[line] : static_cast<std::uint32_t>(text_.size());
  std::string_view s = std::string_view(text_).substr(start, end - start);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

SourceId SourceMap::add(std::string name, std::string text, bool binary) {
  files_.emplace_back(std::move(name), std::move(text), binary);
  return static_cast<SourceId>(files_.size() - 1);
}

}  // namespace rung
