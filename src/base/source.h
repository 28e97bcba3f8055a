// Source files and byte spans. Every location rung reports is a byte span in a file held
// by a SourceMap; line and column are derived on demand (columns count UTF-8 scalar
// values, 1-based, so they match what editors show).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rung {

using SourceId = std::uint32_t;
inline constexpr SourceId kNoSource = 0xFFFFFFFFu;

struct Span {
  SourceId source = kNoSource;
  std::uint32_t begin = 0;  // byte offset, inclusive
  std::uint32_t end = 0;    // byte offset, exclusive

  bool valid() const { return source != kNoSource; }
  std::uint32_t size() const { return end - begin; }
};

struct LineCol {
  std::uint32_t line = 1;    // 1-based
  std::uint32_t column = 1;  // 1-based, in scalar values
};

class SourceFile {
 public:
  // `binary` files (.keg, .npy) are located by byte offset, never by line.
  SourceFile(std::string name, std::string text, bool binary);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  bool binary() const { return binary_; }

  LineCol line_col(std::uint32_t offset) const;
  std::uint32_t line_count() const { return static_cast<std::uint32_t>(line_starts_.size()); }
  // The text of a 1-based line without its line terminator.
  std::string_view line_text(std::uint32_t line) const;
  std::uint32_t line_start(std::uint32_t line) const { return line_starts_.at(line - 1); }

 private:
  std::string name_;
  std::string text_;
  bool binary_;
  std::vector<std::uint32_t> line_starts_;
};

class SourceMap {
 public:
  SourceId add(std::string name, std::string text, bool binary = false);
  const SourceFile& get(SourceId id) const { return files_.at(id); }
  std::size_t size() const { return files_.size(); }

 private:
  std::vector<SourceFile> files_;
};

}  // namespace rung
