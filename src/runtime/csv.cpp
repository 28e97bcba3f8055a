#include "runtime/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "base/charconv.h"
#include "base/file_io.h"

namespace rung::csv {

namespace {

struct Field {
  std::string_view text;  // without the spaces and tabs around it
  std::uint32_t at = 0;   // byte offset in the file
  bool quoted = false;    // "..." (a name, never a number)
};

bool blank(char c) { return c == ' ' || c == '\t'; }

// One line's fields; a double-quoted field may hold commas ("" is a quote inside it).
std::vector<Field> split(std::string_view line, std::uint32_t line_at) {
  std::vector<Field> out;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && blank(line[i])) ++i;
    std::size_t begin = i;
    bool quoted = i < line.size() && line[i] == '"';
    if (quoted) {
      for (++i; i < line.size(); ++i) {
        if (line[i] != '"') continue;
        if (i + 1 < line.size() && line[i + 1] == '"') ++i;  // "" inside quotes
        else break;
      }
    }
    std::size_t comma = line.find(',', i);
    if (comma == std::string_view::npos) comma = line.size();
    std::size_t end = comma;
    while (end > begin && blank(line[end - 1])) --end;
    Field f{line.substr(begin, end - begin), line_at + static_cast<std::uint32_t>(begin), false};
    f.quoted = quoted && f.text.size() >= 2 && f.text.back() == '"';
    out.push_back(f);
    if (comma == line.size()) return out;
    i = comma + 1;
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != b[i]) return false;
  return true;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// The number grammar of the header comment; the same in every row.
bool is_number(std::string_view s) {
  std::size_t i = 0, n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  std::string_view word = s.substr(i);
  if (iequals(word, "inf") || iequals(word, "infinity") || iequals(word, "nan")) return true;
  std::size_t mantissa = 0;
  while (i < n && digit(s[i])) ++i, ++mantissa;
  if (i < n && s[i] == '.')
    for (++i; i < n && digit(s[i]); ++i) ++mantissa;
  if (mantissa == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp = 0;
    while (i < n && digit(s[i])) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == n;
}

// The sign of a number's decimal exponent: positive for 1e400, negative for 1e-400 and 0.001.
long magnitude(std::string_view s) {
  std::size_t e = s.find_first_of("eE");
  std::string_view mant = s.substr(0, e);
  long exp = 0;
  if (e != std::string_view::npos) {
    std::string_view x = s.substr(e + 1);
    if (!x.empty() && x.front() == '+') x.remove_prefix(1);
    auto [p, ec] = std::from_chars(x.data(), x.data() + x.size(), exp);
    if (ec == std::errc::result_out_of_range) exp = x.front() == '-' ? -1000000 : 1000000;
  }
  std::size_t point = mant.find('.');
  std::size_t first = mant.find_first_of("123456789");
  if (first == std::string_view::npos) return -1;  // zero
  if (point == std::string_view::npos) point = mant.size();
  long lead = first < point ? static_cast<long>(point - first) : -static_cast<long>(first - point) + 1;
  return lead + std::clamp(exp, -1000000L, 1000000L);
}

bool is_name(const Field& f) {
  if (f.quoted) return true;
  if (f.text.empty() || is_number(f.text)) return false;
  unsigned char c = static_cast<unsigned char>(f.text[0]);
  return c >= 0x80 || c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

bool all_names(const std::vector<Field>& fs) {
  for (const auto& f : fs)
    if (!is_name(f)) return false;
  return true;
}

bool all_numbers(const std::vector<Field>& fs) {
  for (const auto& f : fs)
    if (!is_number(f.text)) return false;
  return true;
}

// Reads the rows into a tensor of one dtype, checking every field.
class Reader {
 public:
  Reader(SourceId src, DType dtype, DiagnosticSink& d) : src_(src), dtype_(dtype), info_(dtype_info(dtype)), d_(d) {}

  Diagnostic& error(std::string code, std::string message, const Field& f) {
    std::uint32_t end = f.at + static_cast<std::uint32_t>(f.text.size());
    return d_.error(std::move(code), std::move(message)).primary(Span{src_, f.at, end});
  }

  // Appends one data row; false (with a diagnostic) when a field does not fit.
  bool row(const std::vector<Field>& fs, std::uint64_t width, std::string_view width_of) {
    if (width != 0 && fs.size() != width) {
      error("V0002", "CSV row has " + std::to_string(fs.size()) + " fields, " + std::string(width_of) + " has " + std::to_string(width),
            fs.front());
      return false;
    }
    for (const Field& f : fs)
      if (!value(f)) return false;
    ++rows_;
    return true;
  }

  ops::HostTensor tensor(std::uint64_t cols) const {
    ops::HostTensor t(dtype_, {rows_, cols});
    for (std::uint64_t i = 0; i < floats_.size(); ++i) t.store_f64(i, floats_[i]);
    for (std::uint64_t i = 0; i < ints_.size(); ++i) t.store_int(i, ints_[i]);
    return t;
  }
  std::uint64_t rows() const { return rows_; }

 private:
  bool value(const Field& f) {
    std::string_view s = f.text;
    if (!is_number(s)) {
      Diagnostic& e = error("V0001", s.empty() ? "CSV field is empty" : "CSV field is not a number", f);
      if (f.quoted) e.note("a quoted field is a name (header rows only), not a number");
      return false;
    }
    if (s.front() == '+') s.remove_prefix(1);  // from_chars takes no '+'
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (info_.is_integer && s.find_first_of(".eEiInN") == std::string_view::npos) return integer(f, b, e);
    double v = 0;
    auto [ptr, ec] = charconv::from_chars(b, e, v);
    if (ptr != e || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      error("V0001", "CSV field is not a number", f);
      return false;
    }
    if (ec == std::errc::result_out_of_range)  // from_chars leaves v as it was: beyond the double range, or below it
      v = std::copysign(magnitude(s) > 0 ? HUGE_VAL : 0.0, s.front() == '-' ? -1.0 : 1.0);
    if (info_.is_float) {
      std::string_view word = s.substr(s.front() == '-' ? 1 : 0);
      probe_.store_f64(0, v);
      if (std::isinf(probe_.load_f64(0)) && !iequals(word, "inf") && !iequals(word, "infinity")) {
        error("V0001", "CSV value is out of the range of " + std::string(dtype_name(dtype_)), f);
        return false;
      }
      floats_.push_back(v);
      return true;
    }
    if (!std::isfinite(v) || v != std::floor(v)) {
      error("V0001", "CSV value is not an integer (reading as " + std::string(dtype_name(dtype_)) + ")", f);
      return false;
    }
    if (!in_range(v)) {
      error("V0001", "CSV value is out of the range of " + std::string(dtype_name(dtype_)), f);
      return false;
    }
    ints_.push_back(v < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) : static_cast<std::uint64_t>(v));
    return true;
  }

  // Integers are read exactly (all 64 bits), not through a double.
  bool integer(const Field& f, const char* b, const char* e) {
    unsigned bits = info_.block_bytes * 8;
    bool ok = false;
    std::uint64_t out = 0;
    if (info_.is_signed) {
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(b, e, v);
      std::int64_t hi = bits >= 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
      ok = ec == std::errc() && ptr == e && v <= hi && v >= -hi - 1;
      out = static_cast<std::uint64_t>(v);
    } else {
      std::uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(b, e, v);
      bool negative_zero = *b == '-' && std::all_of(b + 1, e, [](char c) { return c == '0'; });
      if (negative_zero) ok = true, v = 0;
      else ok = ec == std::errc() && ptr == e && (bits >= 64 || v <= (std::uint64_t{1} << bits) - 1);
      out = v;
    }
    if (!ok) {
      error("V0001", "CSV value is out of the range of " + std::string(dtype_name(dtype_)), f);
      return false;
    }
    ints_.push_back(out);
    return true;
  }

  bool in_range(double v) const {
    unsigned bits = info_.block_bytes * 8;
    double lo = info_.is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
    double hi = std::ldexp(1.0, static_cast<int>(bits) - (info_.is_signed ? 1 : 0));  // exclusive
    return v >= lo && v < hi;
  }

  SourceId src_;
  DType dtype_;
  const DTypeInfo& info_;
  DiagnosticSink& d_;
  std::uint64_t rows_ = 0;
  std::vector<double> floats_;
  std::vector<std::uint64_t> ints_;
  ops::HostTensor probe_{dtype_, {1}};  // a float value as the dtype stores it (overflow to inf?)
};

}  // namespace

Header header_of(std::string_view read_kind) {
  return read_kind == "csv.header" ? Header::present : read_kind == "csv.noheader" ? Header::absent : Header::detect;
}

std::optional<ops::HostTensor> parse(SourceId src, const SourceMap& sources, DType dtype, Header header, DiagnosticSink& d) {
  std::string_view text = sources.get(src).text();
  const DTypeInfo& info = dtype_info(dtype);
  if (!info.is_float && !info.is_integer) {
    d.error("V0003", "CSV files can be read as float or integer tensors, not " + std::string(dtype_name(dtype)));
    return std::nullopt;
  }
  Reader reader(src, dtype, d);
  std::size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // a byte order mark is not data
  std::optional<std::vector<Field>> first;  // row 1 while it may be a header
  bool header_taken = false;
  std::uint64_t width = 0;
  std::string_view width_of = "the first row";
  std::uint64_t line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    auto line_at = static_cast<std::uint32_t>(pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++line_no;
    std::vector<Field> fields = split(line, line_at);
    if (line_no == 1 && (header == Header::present || (header == Header::detect && all_names(fields)))) {
      first = std::move(fields);
      continue;
    }
    if (first && !header_taken) {  // row 1 was a header (declared, or names only and a data row follows)
      header_taken = true;
      width = first->size();
      width_of = "the header";
    }
    if (!reader.row(fields, width, width_of)) {
      if (line_no == 1 && header == Header::detect && !all_numbers(fields))
        for (const Field& f : fields)
          if (is_name(f)) {
            d.last().note("row 1 is read as data: it is taken for a header only when every field is a name; "
                          "declare one with `read_csv(\"...\", header: true)`");
            break;
          }
      return std::nullopt;
    }
    if (width == 0) width = fields.size();
  }
  if (first && !header_taken) {
    if (header == Header::present) return reader.tensor(first->size());  // a header and no rows: an empty table
    d.error("V0004", "CSV file has a row of names and no data row after it")
        .primary(Span{src, first->front().at, first->back().at + static_cast<std::uint32_t>(first->back().text.size())})
        .note("declare `read_csv(\"...\", header: true)` to read it as an empty table, or `header: false` to read row 1 as data");
    return std::nullopt;
  }
  if (header == Header::present && !first) {
    d.error("V0004", "CSV file has no header row, but `header: true` declares one").primary(Span{src, 0, 0});
    return std::nullopt;
  }
  return reader.tensor(width);
}

std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DType dtype, Header header, DiagnosticSink& d) {
  auto data = read_file(path, d);
  if (!data) return std::nullopt;
  SourceId src = sources.add(path, std::move(*data));
  return parse(src, sources, dtype, header, d);
}

}  // namespace rung::csv
