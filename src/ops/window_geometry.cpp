#include "ops/window_geometry.h"

#include "base/check.h"

namespace rung::ops {

namespace {

// `name` as rank values >= lo (or empty: `dflt` each).
std::optional<std::vector<std::uint64_t>> per_axis(const Attrs& a, const char* name, std::size_t count, std::int64_t lo,
                                                   std::uint64_t dflt, std::string& err) {
  const auto& v = a.integers(name);
  if (v.empty()) return std::vector<std::uint64_t>(count, dflt);
  if (v.size() != count) {
    err = std::string("`") + name + "` needs " + std::to_string(count) + " values, got " + std::to_string(v.size());
    return std::nullopt;
  }
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] < lo) {
      err = std::string("`") + name + "`[" + std::to_string(i) + "] is " + std::to_string(v[i]) +
            "; it must be >= " + std::to_string(lo);
      return std::nullopt;
    }
    out.push_back(static_cast<std::uint64_t>(v[i]));
  }
  return out;
}

}  // namespace

std::optional<WindowAttrs> window_attrs(const Attrs& a, std::size_t rank, std::string& err) {
  WindowAttrs w;
  auto s = per_axis(a, "strides", rank, 1, 1, err);
  if (!s) return std::nullopt;
  auto d = per_axis(a, "dilations", rank, 1, 1, err);
  if (!d) return std::nullopt;
  auto p = per_axis(a, "pads", 2 * rank, 0, 0, err);
  if (!p) {
    if (a.integers("pads").size() != 2 * rank) err += " (before and after for each spatial axis)";
    return std::nullopt;
  }
  w.strides = std::move(*s);
  w.dilations = std::move(*d);
  w.pads = std::move(*p);
  return w;
}

std::optional<std::uint64_t> window_out_extent(const WindowAxis& w, bool ceil_mode, std::string& err) {
  // Every extent, stride, dilation and pad at most 2^40, and the dilated kernel at most 2^41:
  // the index arithmetic below (and at(), in int64) cannot overflow.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 40;
  for (auto [v, name] : {std::pair{w.in, "input extent"}, {w.k, "kernel extent"}, {w.stride, "stride"},
                         {w.dilation, "dilation"}, {w.pad_before, "pad"}, {w.pad_after, "pad"}})
    if (v > kLimit) {
      err = std::string("the window's ") + name + " " + std::to_string(v) + " is over 2^40";
      return std::nullopt;
    }
  if (w.k > 1 && w.dilation > 2 * kLimit / (w.k - 1)) {
    err = "the dilated kernel (extent " + std::to_string(w.k) + ", dilation " + std::to_string(w.dilation) + ") spans over 2^41";
    return std::nullopt;
  }
  std::uint64_t padded = w.in + w.pad_before + w.pad_after;
  if (w.k == 0 || padded < w.span()) {
    err = "the window (extent " + std::to_string(w.k) + ", dilation " + std::to_string(w.dilation) + ": spans " +
          std::to_string(w.span()) + ") does not fit the padded input (" + std::to_string(padded) + ")";
    return std::nullopt;
  }
  std::uint64_t room = padded - w.span();
  std::uint64_t out = (ceil_mode ? (room + w.stride - 1) / w.stride : room / w.stride) + 1;
  // ceil_mode may add a window that starts in the after-padding: it is dropped.
  if (ceil_mode && out > 1 && (out - 1) * w.stride >= w.in + w.pad_before) --out;
  return out;
}

bool every_window_touches_input(const WindowAxis& w, std::string& err) {
  // Window o's taps are start + j*dilation, j < k: the first at or after 0 decides (in closed
  // form, not a walk over the taps: a pool's kernel may be far larger than its input).
  for (std::uint64_t o = 0; o < w.out; ++o) {
    std::int64_t start = w.at(o, 0);
    bool hit;
    if (start >= 0) {
      hit = start < static_cast<std::int64_t>(w.in);
    } else {
      std::uint64_t j = (static_cast<std::uint64_t>(-start) + w.dilation - 1) / w.dilation;  // first tap >= 0
      hit = j < w.k && w.at(o, j) < static_cast<std::int64_t>(w.in);
    }
    if (!hit) {
      err = "window " + std::to_string(o) + " lies entirely in the padding (input extent " + std::to_string(w.in) +
            ", pads " + std::to_string(w.pad_before) + "/" + std::to_string(w.pad_after) + ")";
      return false;
    }
  }
  return true;
}

std::pair<std::uint64_t, std::uint64_t> same_pads(std::uint64_t in, std::uint64_t k, std::uint64_t stride,
                                                  std::uint64_t dilation, bool upper) {
  std::uint64_t out = (in + stride - 1) / stride;
  std::uint64_t span = dilation * (k - 1) + 1;
  std::uint64_t need = out == 0 ? 0 : (out - 1) * stride + span;
  std::uint64_t total = need > in ? need - in : 0;
  std::uint64_t small = total / 2, big = total - small;
  return upper ? std::pair{small, big} : std::pair{big, small};
}

Window2 window2(const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& k, const Attrs& a,
                bool ceil_mode) {
  RUNG_CHECK(in.size() == k.size() && (in.size() == 1 || in.size() == 2), "window2: 1 or 2 spatial axes");
  std::string err;
  auto w = window_attrs(a, in.size(), err);
  RUNG_CHECK(w.has_value(), "window2: attributes the shape rule accepted");
  Window2 g;
  std::size_t first = 2 - in.size();  // 1-D: axis 0 stays the trivial one
  for (std::size_t i = 0; i < in.size(); ++i) {
    WindowAxis& x = g.ax[first + i];
    x.in = in[i];
    x.k = k[i];
    x.stride = w->strides[i];
    x.dilation = w->dilations[i];
    x.pad_before = w->pads[2 * i];
    x.pad_after = w->pads[2 * i + 1];
    auto out = window_out_extent(x, ceil_mode, err);
    RUNG_CHECK(out.has_value(), "window2: a window the shape rule accepted");
    x.out = *out;
  }
  if (first == 1) g.ax[0] = WindowAxis{1, 1, 1, 1, 0, 0, 1};
  return g;
}

}  // namespace rung::ops
