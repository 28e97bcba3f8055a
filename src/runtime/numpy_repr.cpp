#include "runtime/numpy_repr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "base/charconv.h"

namespace rung::runtime {
namespace {

constexpr std::size_t kLineWidth = 75;  // np.get_printoptions(): linewidth
constexpr std::uint64_t kThreshold = 1000;  // threshold: more elements are summarised
constexpr std::uint64_t kEdgeItems = 3;     // edgeitems
constexpr int kPrecision = 8;               // precision: digits after the point at most

// A finite value's shortest round-trip digits in its own dtype: value = d0.d1d2... x 10^exp.
struct Decimal {
  bool negative = false;
  std::string digits;  // no trailing zeros; "0" for zero
  int exp = 0;
};

Decimal parse_scientific(std::string_view s) {  // "-1.2345e-07" as to_chars/printf write it
  Decimal d;
  if (!s.empty() && s[0] == '-') {
    d.negative = true;
    s.remove_prefix(1);
  }
  auto e = s.find('e');
  for (char c : s.substr(0, e))
    if (c != '.') d.digits += c;
  d.exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  if (d.digits == "0") d.exp = 0;
  return d;
}

// f16 and bf16: the fewest significant digits whose decimal reads back (one rounding to the
// dtype) as the same value; of two candidates of that length, the one nearer the value.
Decimal shortest_narrow(double x, DType dt) {
  ops::HostTensor probe(dt, {});
  auto reads_back = [&](double y) {
    probe.store_f64(0, y);
    return probe.load_f64(0) == x;
  };
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    double y = std::strtod(buf, nullptr);
    if (reads_back(y)) return parse_scientific(buf);
    // Just below a power of two the interval is lopsided: the other neighbour may fit.
    Decimal d = parse_scientific(buf);
    double unit = std::pow(10.0, d.exp - (p - 1));
    double other = y < x ? y + unit : y - unit;
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, other);
    if (reads_back(std::strtod(buf, nullptr))) return parse_scientific(buf);
  }
  std::snprintf(buf, sizeof buf, "%.16e", x);
  return parse_scientific(buf);
}

Decimal shortest(const ops::HostTensor& t, std::uint64_t i) {
  char buf[64];
  std::to_chars_result r{};
  if (t.dtype() == DType::f32) {
    r = rung::charconv::to_chars(buf, buf + sizeof buf, t.load_f32(i), std::chars_format::scientific);
  } else if (t.dtype() == DType::f64) {
    r = rung::charconv::to_chars(buf, buf + sizeof buf, t.load_f64(i), std::chars_format::scientific);
  } else {
    return shortest_narrow(t.load_f64(i), t.dtype());
  }
  return parse_scientific(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

void trim_zeros(std::string& frac) {
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
}

// NumPy's dragon4_positional(x, precision=8, unique=True, fractional=True, trim='.'): split
// into sign+integer part and fraction part (the point between them is implied).
std::pair<std::string, std::string> positional(const Decimal& d, double x) {
  std::string ip, fp;
  const int n = static_cast<int>(d.digits.size());
  if (d.exp >= 0) {
    for (int k = 0; k <= d.exp; ++k) ip += k < n ? d.digits[k] : '0';
    if (n > d.exp + 1) fp = d.digits.substr(d.exp + 1);
    // NumPy formats elements with min_digits=0, which prints the integer part's exact digits
    // where the shortest digits end before the point (f16 58336, not 58340): the value is an
    // integer there, so its exact digits are its fixed form with no fraction.
    if (n <= d.exp) {
      char buf[400];
      auto r = rung::charconv::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::fixed, 0);
      ip.assign(buf, r.ptr);
    }
  } else {
    ip = "0";
    fp = std::string(-d.exp - 1, '0') + d.digits;
  }
  if (fp.size() > static_cast<std::size_t>(kPrecision)) {  // cut: the exact value rounded (half to even)
    char buf[400];
    auto r = rung::charconv::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::fixed, kPrecision);
    std::string s(buf, r.ptr);
    auto dot = s.find('.');
    ip = s.substr(0, dot);
    fp = s.substr(dot + 1);
    trim_zeros(fp);
  }
  if (d.negative) ip = "-" + ip;
  return {ip, fp};
}

// dragon4_scientific(x, precision=8, unique=True, trim='.'): {sign+lead digit, fraction, exponent}.
struct Sci {
  std::string lead, frac;
  int exp;
};
Sci scientific(const Decimal& d, double x) {
  Sci s{d.digits.substr(0, 1), d.digits.substr(1), d.exp};
  if (s.frac.size() > static_cast<std::size_t>(kPrecision)) {
    char buf[64];
    auto r = rung::charconv::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::scientific, kPrecision);
    Decimal c = parse_scientific(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    s = {c.digits.substr(0, 1), c.digits.substr(1), c.exp};
  }
  if (d.negative) s.lead = "-" + s.lead;
  return s;
}

std::string exp_text(int e, std::size_t digits) {
  std::string v = std::to_string(std::abs(e));
  if (v.size() < digits) v = std::string(digits - v.size(), '0') + v;
  return (e < 0 ? "e-" : "e+") + v;
}

// FloatingFormat: the layout every element of the (shown part of the) array shares.
class FloatFormat {
 public:
  FloatFormat(const ops::HostTensor& t, const std::vector<std::uint64_t>& shown) : t_(t) {
    std::vector<std::uint64_t> finite;
    bool any_nonfinite = false, neg_inf = false;
    double max_abs = 0, min_abs = INFINITY;
    for (auto i : shown) {
      double v = t.load_f64(i);
      if (!std::isfinite(v)) {
        any_nonfinite = true;
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
        continue;
      }
      finite.push_back(i);
      if (v != 0) {
        max_abs = std::max(max_abs, std::fabs(v));
        min_abs = std::min(min_abs, std::fabs(v));
      }
    }
    if (min_abs != INFINITY)
      exp_ = max_abs >= 1e8 || min_abs < 1e-4 || in_dtype(max_abs / min_abs) > 1000.0;
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_) {
      std::size_t exp_len = 0;
      for (auto i : finite) {
        Sci s = scientific(shortest(t, i), t.load_f64(i));
        exp_len = std::max(exp_len, std::to_string(std::abs(s.exp)).size());
        precision_ = std::max(precision_, s.frac.size());
        pad_left_ = std::max(pad_left_, s.lead.size());
      }
      exp_digits_ = std::max<std::size_t>(exp_len, 2);
      pad_right_ = exp_digits_ + 2 + precision_;
    } else {
      for (auto i : finite) {
        auto [ip, fp] = positional(shortest(t, i), t.load_f64(i));
        pad_left_ = std::max(pad_left_, ip.size());
        pad_right_ = std::max(pad_right_, fp.size());
      }
    }
    if (any_nonfinite) {  // "nan" and "inf" ("-inf") must fit the column too
      std::size_t offset = pad_right_ + 1;
      std::size_t inf_len = 3 + (neg_inf ? 1 : 0);
      if (3 > offset) pad_left_ = std::max(pad_left_, 3 - offset);
      if (inf_len > offset) pad_left_ = std::max(pad_left_, inf_len - offset);
    }
  }

  std::string operator()(std::uint64_t i) const {
    double v = t_.load_f64(i);
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
      std::size_t width = pad_left_ + pad_right_ + 1;
      return std::string(width > r.size() ? width - r.size() : 0, ' ') + r;
    }
    Decimal d = shortest(t_, i);
    if (exp_) {
      Sci s = scientific(d, v);
      if (s.frac.size() < precision_) {  // min_digits: more digits of the exact value, not zeros
        char buf[64];
        auto r = rung::charconv::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific, static_cast<int>(precision_));
        std::string_view m(buf, static_cast<std::size_t>(r.ptr - buf));
        auto e = m.find('e');
        s.lead = std::string(d.negative ? "-" : "") + std::string(m.substr(0, 1));
        s.frac = std::string(m.substr(2, e - 2));
        s.exp = std::atoi(std::string(m.substr(e + 1)).c_str());
      }
      return std::string(pad_left_ - s.lead.size(), ' ') + s.lead + "." + s.frac + exp_text(s.exp, exp_digits_);
    }
    auto [ip, fp] = positional(d, v);
    return std::string(pad_left_ - ip.size(), ' ') + ip + "." + fp + std::string(pad_right_ - fp.size(), ' ');
  }

 private:
  // NumPy divides in the array's dtype (its max by its min), then compares with a double.
  double in_dtype(double v) const {
    if (t_.dtype() == DType::f64) return v;
    ops::HostTensor probe(t_.dtype(), {});
    probe.store_f64(0, v);
    return probe.load_f64(0);
  }
  const ops::HostTensor& t_;
  bool exp_ = false;
  std::size_t pad_left_ = 0, pad_right_ = 0, precision_ = 0, exp_digits_ = 2;
};

std::string dtype_repr(DType dt) {
  switch (dt) {
    case DType::f32: return "float32";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";  // as ml_dtypes names it; NumPy itself has none
    case DType::f64: return "float64";
    case DType::i64: return "int64";
    case DType::i32: return "int32";
    case DType::i16: return "int16";
    case DType::i8: return "int8";
    case DType::u64: return "uint64";
    case DType::u32: return "uint32";
    case DType::u16: return "uint16";
    case DType::u8: return "uint8";
    case DType::boolean: return "bool";
    default: return std::string(dtype_name(dt));
  }
}

// The elements a summarised array shows (NumPy's _leading_trailing), in row-major order.
std::vector<std::uint64_t> shown_elements(const ops::Extents& shape, bool summary) {
  std::vector<std::uint64_t> out;
  std::function<void(std::size_t, std::uint64_t)> walk = [&](std::size_t axis, std::uint64_t base) {
    if (axis == shape.size()) {
      out.push_back(base);
      return;
    }
    std::uint64_t n = shape[axis];
    for (std::uint64_t k = 0; k < n; ++k) {
      if (summary && n > 2 * kEdgeItems && k == kEdgeItems) k = n - kEdgeItems;
      walk(axis + 1, base * n + k);
    }
  };
  walk(0, 0);
  return out;
}

// NumPy's _extendLine: wraps before a word that would pass the width (unless the line holds
// only the indent, where wrapping would not help).
void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width, const std::string& indent) {
  if (line.size() + word.size() > width && line.size() > indent.size()) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
    line = indent;
  }
  line += word;
}

// NumPy's _formatArray with separator ", ".
std::string format_array(const ops::Extents& shape, bool summary, const std::function<std::string(std::uint64_t)>& element,
                         std::size_t line_width, const std::string& next_line_prefix) {
  const std::string sep = ", ";
  std::function<std::string(std::size_t, std::uint64_t, const std::string&, std::size_t)> rec =
      [&](std::size_t axis, std::uint64_t base, const std::string& indent, std::size_t width) -> std::string {
    if (axis == shape.size()) return element(base);
    const std::string next_indent = indent + " ";
    const std::size_t next_width = width - 1;  // the closing ']'
    const std::uint64_t n = shape[axis];
    const bool show_summary = summary && 2 * kEdgeItems < n;
    const std::uint64_t leading = show_summary ? kEdgeItems : 0, trailing = show_summary ? kEdgeItems : n;
    std::string s;
    auto child = [&](std::uint64_t k) { return rec(axis + 1, base * n + k, next_indent, next_width); };
    if (axis + 1 == shape.size()) {
      const std::size_t elem_width = width - 1;  // room for the ',' or ']' after the element
      std::string line = indent;
      for (std::uint64_t k = 0; k < leading; ++k) {
        extend_line(s, line, child(k), elem_width, indent);
        line += sep;
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, indent);
        line += sep;
      }
      for (std::uint64_t k = trailing; k > 1; --k) {
        extend_line(s, line, child(n - k), elem_width, indent);
        line += sep;
      }
      extend_line(s, line, child(n - 1), elem_width, indent);
      s += line;
    } else {
      const std::string line_sep = "," + std::string(shape.size() - axis - 1, '\n');
      for (std::uint64_t k = 0; k < leading; ++k) s += indent + child(k) + line_sep;
      if (show_summary) s += indent + "..." + line_sep;
      for (std::uint64_t k = trailing; k > 1; --k) s += indent + child(n - k) + line_sep;
      s += indent + child(n - 1);
    }
    return "[" + s.substr(indent.size()) + "]";
  };
  return rec(0, 0, next_line_prefix, line_width);
}

}  // namespace

std::optional<std::string> numpy_repr(const ops::HostTensor& t) {
  const auto& info = dtype_info(t.dtype());
  if (info.is_quantized) return std::nullopt;
  const DType dt = t.dtype();
  const bool implied = dt == DType::f64 || dt == DType::i64 || dt == DType::boolean;
  const std::uint64_t n = t.numel();
  const bool skip_dtype = implied && n > 0;
  const std::string prefix = "array(", suffix = skip_dtype ? ")" : ",";

  std::string body;
  if (n == 0) {
    body = "[]";
    if (t.rank() != 1) {  // NumPy names the shape unless it is (0,)
      body += ", shape=(";
      for (std::size_t k = 0; k < t.rank(); ++k) body += (k ? ", " : "") + std::to_string(t.shape()[k]);
      body += ")";
    }
  } else {
    const bool summary = n > kThreshold;
    std::vector<std::uint64_t> shown = shown_elements(t.shape(), summary);
    std::function<std::string(std::uint64_t)> element;
    std::optional<FloatFormat> ff;
    if (info.is_float) {
      ff.emplace(t, shown);
      element = [&](std::uint64_t i) { return (*ff)(i); };
    } else if (dt == DType::boolean) {
      std::string true_str = t.rank() ? " True" : "True";
      element = [&t, true_str](std::uint64_t i) { return t.load_bool(i) ? true_str : std::string("False"); };
    } else {
      auto text = [&t, signed_ = info.is_signed](std::uint64_t i) {
        return signed_ ? std::to_string(t.load_i64(i)) : std::to_string(t.load_u64(i));
      };
      std::size_t width = 0;
      for (auto i : shown) width = std::max(width, text(i).size());
      element = [text, width](std::uint64_t i) {
        std::string s = text(i);
        return std::string(width - s.size(), ' ') + s;
      };
    }
    body = format_array(t.shape(), summary, element, kLineWidth - suffix.size(), " " + std::string(prefix.size(), ' '));
  }
  std::string out = prefix + body + suffix;
  if (skip_dtype) return out;
  std::string dtype_str = "dtype=" + dtype_repr(dt) + ")";
  std::size_t last_line = out.size() - (out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  return out + (last_line + dtype_str.size() + 1 > kLineWidth ? "\n" + std::string(prefix.size(), ' ') : " ") + dtype_str;
}

}  // namespace rung::runtime
