#include "runtime/csv.h"

#include <charconv>
#include <cmath>

#include "base/file_io.h"

namespace rung::csv {

std::optional<ops::HostTensor> parse(SourceId src, const SourceMap& sources, DType dtype, DiagnosticSink& d) {
  std::string_view text = sources.get(src).text();
  const DTypeInfo& info = dtype_info(dtype);
  if (!info.is_float && !info.is_integer) {
    d.error("V0003", "CSV files can be read as float or integer tensors, not " + std::string(dtype_name(dtype)));
    return std::nullopt;
  }
  std::vector<double> values;
  std::uint64_t rows = 0, cols = 0;
  std::size_t pos = 0;
  bool first_line = true;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    std::size_t line_at = pos;
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<double> row;
    std::size_t f = 0;
    bool numeric = true;
    std::size_t bad_at = 0;
    while (f <= line.size()) {
      std::size_t comma = line.find(',', f);
      if (comma == std::string_view::npos) comma = line.size();
      std::string_view field = line.substr(f, comma - f);
      while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
      while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
      double v = 0;
      auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
      if (field.empty() || ec != std::errc() || ptr != field.data() + field.size()) {
        numeric = false;
        bad_at = f;
        break;
      }
      row.push_back(v);
      f = comma + 1;
    }
    if (!numeric) {
      if (first_line && rows == 0) {  // a header line
        first_line = false;
        continue;
      }
      d.error("V0001", "CSV field is not a number").primary(Span{src, static_cast<std::uint32_t>(line_at + bad_at), static_cast<std::uint32_t>(line_at + bad_at + 1)});
      return std::nullopt;
    }
    first_line = false;
    if (rows == 0) cols = row.size();
    if (row.size() != cols) {
      d.error("V0002", "CSV row has " + std::to_string(row.size()) + " fields, the first row has " + std::to_string(cols))
          .primary(Span{src, static_cast<std::uint32_t>(line_at), static_cast<std::uint32_t>(line_at + line.size())});
      return std::nullopt;
    }
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  ops::HostTensor t(dtype, {rows, cols});
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    if (info.is_float) {
      t.store_f64(i, values[i]);
    } else {
      double v = values[i];
      if (v != std::floor(v)) {
        d.error("V0001", "CSV value " + std::to_string(v) + " is not an integer (reading as " + std::string(dtype_name(dtype)) + ")");
        return std::nullopt;
      }
      t.store_int(i, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    }
  }
  return t;
}

std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DType dtype, DiagnosticSink& d) {
  auto data = read_file(path, d);
  if (!data) return std::nullopt;
  SourceId src = sources.add(path, std::move(*data));
  return parse(src, sources, dtype, d);
}

}  // namespace rung::csv
