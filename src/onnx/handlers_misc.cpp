// LRN as sums of shifted squares (pad along the channels, one slice per window offset), and
// TfIdfVectorizer over integer tokens: its n-gram pool is known at import, so each n-gram level
// and skip distance is a comparison of shifted slices with the pool's columns, their
// conjunction counted (exact small-integer sums), then weighted and placed by ngram_indexes.
#include <algorithm>

#include "onnx/handlers.h"
#include "onnx/place.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

constexpr std::int64_t kMaxWindowTerms = 4096;  // LRN window offsets emitted (I0005 above)
constexpr std::int64_t kMaxTfIdfTerms = 1 << 16;  // TfIdf slice comparisons emitted (I0005 above)
constexpr std::int64_t kMaxTfIdfOutputs = 1 << 20;

V slice_axis(NodeCtx& c, const Value& x, std::int64_t axis, std::int64_t start, std::int64_t end) {
  return c.op("slice", {x}, {{"starts", AttrValue(Ints{start})}, {"ends", AttrValue(Ints{end})}, {"axes", AttrValue(Ints{axis})}});
}

// y = x / (bias + alpha / size * sum over the window of x^2)^beta, the window [c - floor((size-1)/2),
// c + ceil((size-1)/2)] clipped to the channels (zero padding).
bool lrn(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (!c.has_attr("size")) return c.fail("I0005", "the required attribute \"size\" is missing");
  std::int64_t size = c.attr_int("size", 1);
  double alpha = c.attr_float("alpha", 1e-4f), beta = c.attr_float("beta", 0.75f), bias = c.attr_float("bias", 1.0f);
  if (c.attr_error()) return false;
  if (size < 1) return c.fail("I0005", "size " + std::to_string(size) + " (must be at least 1)");
  if (x.rank() < 2) return c.fail("I0005", "the input must be [N, C, ...], got " + x.type.to_string());
  const Dim& ch = x.type.shape[1];
  if (!ch.is_static()) return c.fail("I0012", "the channel axis has the symbolic dim " + ch.name());
  auto channels = static_cast<std::int64_t>(ch.extent());
  if (channels == 0) return out0(c, V{x});
  // Offsets beyond the channel count only ever meet padding: drop them.
  std::int64_t lo = std::min((size - 1) / 2, channels - 1), hi = std::min(size - 1 - (size - 1) / 2, channels - 1);
  if (lo + hi + 1 > kMaxWindowTerms) return c.fail("I0005", "a window of " + std::to_string(lo + hi + 1) + " channels (rung emits at most " + std::to_string(kMaxWindowTerms) + ")");
  Ints pads(2 * x.rank(), 0);
  pads[2] = lo;
  pads[3] = hi;
  V sq = c.op("square", {x});
  V padded = sq ? c.op("pad", {*sq}, {{"pads", AttrValue(pads)}}) : V{};
  if (!padded) return false;
  V sum;
  for (std::int64_t o = 0; o <= lo + hi; ++o) {  // channel c - lo + o, in the reference's order
    V term = slice_axis(c, *padded, 1, o, o + channels);
    if (!term) return false;
    sum = sum ? c.op("add", {*sum, *term}) : term;
    if (!sum) return false;
  }
  DType dt = x.type.dtype;
  V scaled = c.op("mul", {*sum, c.scalar(dt, alpha / static_cast<double>(size))});
  V base = scaled ? c.op("add", {*scaled, c.scalar(dt, bias)}) : V{};
  V den = base ? c.op("pow", {*base, c.scalar(dt, beta)}) : V{};
  return den && out0(c, c.op("div", {x, *den}));
}

bool tfidf(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  for (const char* a : {"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts", "ngram_indexes"})
    if (!c.has_attr(a)) return c.fail("I0005", std::string("the required attribute \"") + a + "\" is missing");
  std::int64_t max_n = c.attr_int("max_gram_length", 0), max_skip = c.attr_int("max_skip_count", 0), min_n = c.attr_int("min_gram_length", 0);
  std::string mode = c.attr_string("mode", "");
  auto counts = c.attr_ints("ngram_counts"), indexes = c.attr_ints("ngram_indexes"), pool = c.attr_ints("pool_int64s");
  auto strings = c.attr_strings("pool_strings");
  auto weights = c.attr_floats("weights");
  if (c.attr_error()) return false;
  if (strings) return c.fail("I0007", "pool_strings: string tensors are not supported (integer pools only)");
  if (!pool) return c.fail("I0005", "pool_int64s is missing");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return c.fail("I0005", "mode " + quoted(mode) + " (TF, IDF or TFIDF)");
  if (x.type.dtype != DType::i32 && x.type.dtype != DType::i64) return c.fail("I0005", "the input must be int32 or int64, got " + x.type.to_string());
  if (x.rank() != 1 && x.rank() != 2) return c.fail("I0005", "the input must be [C] or [N, C], got " + x.type.to_string());
  auto dims = c.static_shape(x, "the input");
  if (!dims) return false;
  if (min_n < 1 || max_n < min_n) return c.fail("I0005", "min_gram_length " + std::to_string(min_n) + ", max_gram_length " + std::to_string(max_n) + " (need 1 <= min <= max)");
  if (max_skip < 0) return c.fail("I0005", "max_skip_count " + std::to_string(max_skip) + " is negative");
  // The pool's levels: level i (n = i + 1) runs from counts[i] to the next level's start.
  auto levels = static_cast<std::int64_t>(counts->size());
  auto pool_size = static_cast<std::int64_t>(pool->size());
  std::vector<std::int64_t> begin(static_cast<std::size_t>(levels) + 1, pool_size), entries_before(static_cast<std::size_t>(levels) + 1, 0);
  for (std::int64_t i = 0; i < levels; ++i) {
    begin[static_cast<std::size_t>(i)] = (*counts)[static_cast<std::size_t>(i)];
    std::int64_t b = begin[static_cast<std::size_t>(i)], prev = i ? begin[static_cast<std::size_t>(i) - 1] : 0;
    if (b < prev || b > pool_size) return c.fail("I0005", "ngram_counts[" + std::to_string(i) + "] = " + std::to_string(b) + " is not a start in the pool of " + std::to_string(pool_size) + " in order");
  }
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < levels; ++i) {
    std::int64_t len = begin[static_cast<std::size_t>(i) + 1] - begin[static_cast<std::size_t>(i)];
    if (len % (i + 1) != 0) return c.fail("I0005", "level " + std::to_string(i + 1) + " of the pool holds " + std::to_string(len) + " values, not a multiple of " + std::to_string(i + 1));
    entries_before[static_cast<std::size_t>(i)] = total;
    total += len / (i + 1);
  }
  entries_before[static_cast<std::size_t>(levels)] = total;
  if (static_cast<std::int64_t>(indexes->size()) != total)
    return c.fail("I0005", "ngram_indexes has " + std::to_string(indexes->size()) + " entries; the pool holds " + std::to_string(total) + " n-grams");
  std::int64_t outputs = 0;
  std::vector<std::int64_t> source;  // per output position, the pool n-gram placed there (total: none)
  for (std::size_t k = 0; k < indexes->size(); ++k) {
    std::int64_t o = (*indexes)[k];
    if (o < 0 || o >= kMaxTfIdfOutputs) return c.fail("I0005", "ngram_indexes[" + std::to_string(k) + "] = " + std::to_string(o) + " is outside [0, " + std::to_string(kMaxTfIdfOutputs) + ")");
    outputs = std::max(outputs, o + 1);
  }
  source.assign(static_cast<std::size_t>(outputs), total);
  bool identity = true;
  for (std::size_t k = 0; k < indexes->size(); ++k) {
    auto o = static_cast<std::size_t>((*indexes)[k]);
    if (source[o] != total) return c.fail("I0005", "ngram_indexes places two n-grams at output " + std::to_string(o));
    source[o] = static_cast<std::int64_t>(k);
    identity = identity && (*indexes)[k] == static_cast<std::int64_t>(k);
  }
  if (weights && static_cast<std::int64_t>(weights->size()) != total)
    return c.fail("I0005", "weights has " + std::to_string(weights->size()) + " entries; the pool holds " + std::to_string(total) + " n-grams");
  if (weights && !identity)
    return c.fail("I0005", "weights with ngram_indexes other than 0, 1, ... (the spec weights pool n-grams, onnxruntime output positions)");

  std::uint64_t rows = x.rank() == 2 ? (*dims)[0] : 1, length = dims->back();
  V x2 = cast_to(c, x, DType::i64);
  x2 = x2 ? reshape_to(c, *x2, {Dim::fixed(rows), Dim::fixed(length)}) : V{};
  if (!x2) return false;
  auto len = static_cast<std::int64_t>(length);
  auto zeros = [&](std::int64_t cols) {  // [rows, cols] of +0, broadcast (never a rows-sized constant)
    Value z = c.constant(ops::HostTensor(DType::f32, {1, static_cast<std::uint64_t>(cols)}));
    return c.op("broadcast_to", {z}, {{"shape", AttrValue(Shape{Dim::fixed(rows), Dim::fixed(static_cast<std::uint64_t>(cols))})}});
  };
  std::int64_t terms = 0;
  std::vector<Value> level_counts;
  for (std::int64_t i = 0; i < levels; ++i) {
    std::int64_t n = i + 1, k_n = entries_before[static_cast<std::size_t>(i) + 1] - entries_before[static_cast<std::size_t>(i)];
    if (k_n == 0) continue;
    V acc;
    if (n >= min_n && n <= max_n) {
      // Unigrams once; longer n-grams once per skip distance d = 1 .. max_skip + 1 (onnxruntime's count).
      std::int64_t max_d = n == 1 ? 1 : std::min(max_skip + 1, len);
      for (std::int64_t d = 1; d <= max_d; ++d) {
        std::int64_t positions = len - (n - 1) * d;
        if (positions <= 0) break;
        if ((terms += n) > kMaxTfIdfTerms) return c.fail("I0005", "the n-gram counts need more than " + std::to_string(kMaxTfIdfTerms) + " comparisons");
        V all;
        for (std::int64_t j = 0; j < n; ++j) {
          ops::HostTensor col(DType::i64, {static_cast<std::uint64_t>(k_n)});
          for (std::int64_t e = 0; e < k_n; ++e)
            col.store_int(static_cast<std::uint64_t>(e), static_cast<std::uint64_t>((*pool)[static_cast<std::size_t>(begin[static_cast<std::size_t>(i)] + e * n + j)]));
          V s = slice_axis(c, *x2, 1, j * d, j * d + positions);
          s = s ? reshape_to(c, *s, {Dim::fixed(rows), Dim::fixed(static_cast<std::uint64_t>(positions)), Dim::fixed(1)}) : V{};
          V hit = s ? c.op("eq", {*s, c.constant(std::move(col))}) : V{};
          all = all && hit ? c.op("logical_and", {*all, *hit}) : hit;
          if (!all) return false;
        }
        V f = cast_to(c, *all, DType::f32);
        V counted = f ? c.op("sum", {*f}, {{"axes", AttrValue(Ints{1})}, {"keepdims", AttrValue(false)}}) : V{};
        acc = acc && counted ? c.op("add", {*acc, *counted}) : counted;
        if (!acc) return false;
      }
    }
    if (!acc) acc = zeros(k_n);
    if (!acc) return false;
    level_counts.push_back(*acc);
  }
  V pad = zeros(1);  // the column unfilled outputs take
  if (!pad) return false;
  level_counts.push_back(*pad);
  V freq = level_counts.size() == 1 ? V{level_counts[0]} : c.op("concat", level_counts, {{"axis", AttrValue(std::int64_t{1})}});
  if (!freq) return false;
  if (mode != "TF") {
    ops::HostTensor w(DType::f32, {static_cast<std::uint64_t>(total) + 1});
    for (std::int64_t k = 0; k < total; ++k) w.store_f32(static_cast<std::uint64_t>(k), weights ? (*weights)[static_cast<std::size_t>(k)] : 1.0f);
    Value wv = c.constant(std::move(w));
    if (mode == "IDF") {
      V seen = c.op("gt", {*freq, c.scalar(DType::f32, 0)});
      freq = seen ? c.op("where", {*seen, wv, c.scalar(DType::f32, 0)}) : V{};
    } else {
      freq = c.op("mul", {*freq, wv});
    }
    if (!freq) return false;
  }
  ops::HostTensor idx(DType::i64, {static_cast<std::uint64_t>(outputs)});
  for (std::size_t o = 0; o < source.size(); ++o) idx.store_int(o, static_cast<std::uint64_t>(source[o]));
  V y = c.op("gather", {*freq, c.constant(std::move(idx))}, {{"axis", AttrValue(std::int64_t{1})}});
  if (y && x.rank() == 1) y = reshape_to(c, *y, {Dim::fixed(static_cast<std::uint64_t>(outputs))});
  return out0(c, y);
}

}  // namespace

void add_misc_handlers(std::vector<Handler>& h) {
  h.push_back({"LRN", 1, kMaxOpset, lrn, "square, pad, slice, add (the window), mul, add, pow, div"});
  h.push_back({"TfIdfVectorizer", 9, kMaxOpset, tfidf, "cast, slice, eq, logical_and, sum per n-gram level and skip, concat, where/mul, gather"});
}

}  // namespace rung::onnx_import
