#include "runtime/interpreter.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <unistd.h>

#include "base/check.h"
#include "runtime/csv.h"
#include "runtime/host_walk.h"
#include "runtime/memory_meter.h"
#include "runtime/npy.h"
#include "runtime/slot_lifetimes.h"
#include "runtime/walk_common.h"

namespace rung::runtime {
namespace {

enum class Flow { next, returned, failed, broke, continued };  // broke/continued: to the innermost loop

// A loop's progress: reported at most once an interval (a second) while it runs, and once
// when it ends if it was reported at all (loops shorter than the interval stay silent).
class LoopProgress {
 public:
  LoopProgress(const ExecOptions& o, std::string phase, std::int64_t total) : fn_(o.progress), interval_(o.progress_interval_s) {
    p_.phase = std::move(phase);
    p_.total = total;
    if (fn_) start_ = last_ = std::chrono::steady_clock::now();
  }
  ~LoopProgress() {
    if (!reported_) return;
    p_.finished = true;
    p_.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    fn_(p_);
  }
  LoopProgress(const LoopProgress&) = delete;
  LoopProgress& operator=(const LoopProgress&) = delete;
  void step() {
    ++p_.done;
    if (!fn_) return;
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_) return;
    last_ = now;
    reported_ = true;
    p_.elapsed_s = std::chrono::duration<double>(now - start_).count();
    fn_(p_);
  }

 private:
  const ProgressFn& fn_;
  double interval_;
  Progress p_;
  std::chrono::steady_clock::time_point start_, last_;
  bool reported_ = false;
};

class Executor {
 public:
  Executor(const block::Program& p, SourceMap& s, DiagnosticSink& d, const ExecOptions& o)
      : p_(p), sources_(s), d_(d), o_(o), out_(o.out ? *o.out : std::cout) {}

  std::optional<std::vector<ops::HostTensor>> call(const block::Function& f, std::span<const ops::HostTensor> args, int depth) {
    if (depth > o_.max_call_depth) {
      d_.error("X0005", "calls nested more than " + std::to_string(o_.max_call_depth) + " deep (in `" + f.name + "`)");
      return std::nullopt;
    }
    if (args.size() != f.params.size()) {
      d_.error("X0001", "`" + f.name + "` takes " + std::to_string(f.params.size()) + " arguments, " + std::to_string(args.size()) +
                            " were given");
      return std::nullopt;
    }
    auto& drops = o_.cache ? o_.cache->drops : drops_;
    auto known = drops.find(&f);
    if (known == drops.end()) known = drops.emplace(&f, slot_drops(f)).first;
    Frame fr{&f, std::vector<std::optional<ops::HostTensor>>(f.slots.size()), {}, depth, {}, std::vector<bool>(f.slots.size()),
             &known->second};
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string why = fit_type(f.slots[f.params[i]].type, args[i], fr.bindings);
      if (!why.empty()) {
        std::string from = depth == 0 && i < o_.arg_origins.size() && !o_.arg_origins[i].empty()
                               ? " (from `" + o_.arg_origins[i] + "`)" : "";
        d_.error("X0001", "argument `" + f.slots[f.params[i]].name + "` of `" + f.name + "`" + from + " " + why);
        return std::nullopt;
      }
      fr.slots[f.params[i]] = args[i].share();  // copy-on-write: a call never copies its arguments
      fr.borrowed[f.params[i]] = true;  // the caller's value (memory meter: not counted twice)
    }
    drop(fr, fr.drops->at_entry);
    Flow flow = body(fr, f.body);
    for (std::size_t i = 0; i < fr.slots.size(); ++i)
      if (fr.slots[i] && !fr.borrowed[i]) meter_release(*fr.slots[i]);
    if (flow == Flow::failed) return std::nullopt;
    if (flow != Flow::returned && !f.results.empty()) {
      d_.error("X0006", "`" + f.name + "` ended without returning its results");
      return std::nullopt;
    }
    return std::move(fr.returned);
  }

 private:
  struct Frame {
    const block::Function* f;
    std::vector<std::optional<ops::HostTensor>> slots;
    DimBindings bindings;
    int depth;
    std::vector<ops::HostTensor> returned;
    std::vector<bool> borrowed;  // slot holds a parameter's value, owned by the caller
    const SlotDrops* drops;      // where each slot's value dies (slot_lifetimes.h)
  };
  // Dead values are dropped at once (a borrowed one is the caller's: nothing is freed).
  void drop(Frame& fr, const std::vector<block::SlotId>& ids) {
    for (block::SlotId id : ids) {
      if (!fr.slots[id]) continue;
      if (!fr.borrowed[id]) meter_release(*fr.slots[id]);
      fr.slots[id].reset();
      fr.borrowed[id] = false;
    }
  }
  Flow enter(Frame& fr, const std::vector<block::Stmt>& list) {
    drop(fr, fr.drops->entering_body(list));
    return body(fr, list);
  }
  // Every slot write goes through here, so the memory meter sees what the frame holds.
  void put(Frame& fr, block::SlotId id, ops::HostTensor v) {
    if (fr.slots[id] && !fr.borrowed[id]) meter_release(*fr.slots[id]);
    meter_allocate(v);
    fr.borrowed[id] = false;
    fr.slots[id] = std::move(v);
  }

  const ops::HostTensor* get(Frame& fr, block::SlotId s, const block::Stmt& at) {
    if (!fr.slots[s]) {
      d_.error("X0002", "in `" + fr.f->name + "`: `" + fr.f->slots[s].name + "` is used before it has a value").primary(at.span);
      return nullptr;
    }
    return &*fr.slots[s];
  }
  bool gather(Frame& fr, const std::vector<block::SlotId>& ids, const block::Stmt& at, std::vector<ops::HostTensor>& out) {
    for (auto s : ids) {
      const ops::HostTensor* t = get(fr, s, at);
      if (!t) return false;
      out.push_back(t->share());  // copy-on-write: an argument is never copied to be read
    }
    return true;
  }
  bool store(Frame& fr, const std::vector<block::SlotId>& ids, std::vector<ops::HostTensor>& vals, const block::Stmt& at) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      std::string why = fit_type(fr.f->slots[ids[i]].type, vals[i], fr.bindings);
      if (!why.empty()) {
        d_.error("X0003", "in `" + fr.f->name + "`: value for `" + fr.f->slots[ids[i]].name + "` " + why).primary(at.span);
        return false;
      }
      put(fr, ids[i], std::move(vals[i]));
    }
    return true;
  }

  Flow body(Frame& fr, const std::vector<block::Stmt>& list) {
    for (const auto& s : list) {
      if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) {
        if (!d_.contains("M0012")) d_.error("M0012", "the run was cancelled (in `" + fr.f->name + "`)").primary(s.span);
        return Flow::failed;
      }
      Flow fl = stmt(fr, s);
      if (fl != Flow::next) return fl;
      drop(fr, fr.drops->after_stmt(s));
    }
    return Flow::next;
  }

  Flow stmt(Frame& fr, const block::Stmt& s) {
    using block::StmtKind;
    switch (s.kind) {
      case StmtKind::compute: {
        // Values dying here are moved into the region, which frees them after their last
        // use inside (slot_lifetimes.h handed_over); not under a split policy (chunks copy).
        std::vector<ops::HostTensor> args;
        HandOver hand;
        hand.args = &args;
        hand.owned = o_.split ? std::vector<bool>(s.args.size(), false) : handed_over(*fr.drops, s, fr.borrowed);
        for (std::size_t i = 0; i < s.args.size(); ++i) {
          if (!get(fr, s.args[i], s)) return Flow::failed;
          ops::HostTensor& t = *fr.slots[s.args[i]];
          args.push_back(hand.owned[i] ? std::move(t) : t.share());  // borrowed: shared, not copied
        }
        for (std::size_t i = 0; i < s.args.size(); ++i)
          if (hand.owned[i]) fr.slots[s.args[i]].reset();
        auto r = p_.graph.find_region(s.region);
        std::size_t before = d_.all().size();
        std::optional<std::vector<ops::HostTensor>> res;
        {
          ScopedHandOver scope(&hand);
          ScopedNodeSpans spans(&p_.node_spans);
          res = o_.split ? run_split(*r, args) : o_.backend->run(p_.graph, *r, args, d_);
        }
        if (!res) {
          // The failing op's own span when the backend located it; else the statement's.
          if (d_.all().size() > before && s.span.valid() && !d_.last().primary_label())
            d_.last().primary(s.span, "in this computation");
          return Flow::failed;
        }
        bool ok = store(fr, s.results, *res, s);
        if (!hand.taken)  // a backend that did not take them: freed where the slots would have been
          for (std::size_t i = 0; i < args.size(); ++i)
            if (hand.owned[i]) meter_release(args[i]);
        return ok ? Flow::next : Flow::failed;
      }
      case StmtKind::call: {
        std::vector<ops::HostTensor> args;
        if (!gather(fr, s.args, s, args)) return Flow::failed;
        auto res = call(*p_.find(s.callee), args, fr.depth + 1);
        if (!res) return Flow::failed;
        return store(fr, s.results, *res, s) ? Flow::next : Flow::failed;
      }
      case StmtKind::for_range: {
        const ops::HostTensor* lo = get(fr, s.args[0], s);
        const ops::HostTensor* hi = get(fr, s.args[1], s);
        if (!lo || !hi) return Flow::failed;
        std::int64_t a = lo->load_i64(0), b = hi->load_i64(0);
        LoopProgress progress(o_, "[" + fr.f->name + "] for loop", b - a);
        for (std::int64_t i = a; i < b; ++i) {
          put(fr, s.results[0], ops::HostTensor::from_i64({}, std::span<const std::int64_t>(&i, 1)));
          Flow fl = enter(fr, s.body);
          progress.step();
          if (fl == Flow::broke) break;
          if (fl != Flow::next && fl != Flow::continued) return fl;
        }
        return Flow::next;
      }
      case StmtKind::while_loop: {
        // The total is unknown: the report is the iteration count and the time so far, so an
        // endless loop shows it is running rather than looking like a hang.
        LoopProgress progress(o_, "[" + fr.f->name + "] while loop", -1);
        for (;;) {
          Flow fl = body(fr, s.cond_body);
          if (fl != Flow::next) return fl;
          const ops::HostTensor* c = get(fr, s.args[0], s);
          if (!c) return Flow::failed;
          if (!c->load_bool(0)) return Flow::next;
          fl = enter(fr, s.body);
          progress.step();
          if (fl == Flow::broke) return Flow::next;
          if (fl != Flow::next && fl != Flow::continued) return fl;
        }
      }
      case StmtKind::if_else: {
        const ops::HostTensor* c = get(fr, s.args[0], s);
        if (!c) return Flow::failed;
        return enter(fr, c->load_bool(0) ? s.body : s.else_body);
      }
      case StmtKind::assign: {
        std::vector<ops::HostTensor> v;
        if (!gather(fr, s.args, s, v)) return Flow::failed;
        return store(fr, s.results, v, s) ? Flow::next : Flow::failed;
      }
      case StmtKind::print: {
        std::string line;
        for (const auto& it : s.items) {
          if (!line.empty()) line += ' ';
          if (!it.slot) {
            line += it.text;
            continue;
          }
          const ops::HostTensor* t = get(fr, *it.slot, s);
          if (!t) return Flow::failed;
          std::string v = t->to_string();
          // Scalars print as their bare value: "f32 0.25" -> "0.25".
          if (t->rank() == 0) v = v.substr(v.find(' ') + 1);
          line += v;
        }
        out_ << line << "\n";
        out_.flush();
        return Flow::next;
      }
      case StmtKind::read: {
        std::filesystem::path path(s.text);
        if (path.is_relative()) {
          std::filesystem::path first = o_.base_dir.empty() ? path : std::filesystem::path(o_.base_dir) / path;
          std::error_code ec;
          if (!std::filesystem::exists(first, ec))
            for (const auto& dir : o_.data_dirs)
              if (std::filesystem::exists(std::filesystem::path(dir) / path, ec)) {
                first = std::filesystem::path(dir) / path;
                break;
              }
          path = first;
        }
        const TensorType& want = fr.f->slots[s.results[0]].type;
        std::optional<ops::HostTensor> t = s.callee == "npy" ? npy::load(path.string(), sources_, d_)
                                                            : csv::load(path.string(), sources_, want.dtype, csv::header_of(s.callee), d_);
        if (!t) {
          if (s.span.valid()) d_.last().secondary(s.span, "read here");
          if (std::filesystem::path(s.text).is_relative())
            d_.last().note("a relative path is looked up next to the program, then in each `rung run --data-dir DIR` (" +
                           std::to_string(o_.data_dirs.size()) + " given, RUNG_DATA_PATH included)");
          return Flow::failed;
        }
        if (o_.reads) {  // the run record hashes these so a replay reads the same bytes
          std::error_code ec;
          std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
          if (std::find(o_.reads->begin(), o_.reads->end(), abs) == o_.reads->end()) o_.reads->push_back(abs);
        }
        std::vector<ops::HostTensor> v{std::move(*t)};
        return store(fr, s.results, v, s) ? Flow::next : Flow::failed;
      }
      case StmtKind::ret: {
        std::vector<ops::HostTensor> v;
        if (!gather(fr, s.args, s, v)) return Flow::failed;
        fr.returned = std::move(v);
        return Flow::returned;
      }
      case StmtKind::break_loop: return Flow::broke;
      case StmtKind::continue_loop: return Flow::continued;
    }
    return Flow::failed;
  }

  // A compute as the split policy says: whole, rewritten, or in chunks of rows. Chunks: the
  // split arguments' rows [lo, hi) are copied out, the region runs on them, its results are
  // held until their rows are copied into the assembled results (allocated after the first
  // chunk); the memory meter sees each of these copies, as the plan models them.
  std::optional<std::vector<ops::HostTensor>> run_split(RegionId r, std::span<const ops::HostTensor> args) {
    auto how = o_.split(p_.graph, r, args, d_);
    if (!how) return std::nullopt;
    const Graph& g = how->graph ? *how->graph : p_.graph;
    if (how->rows == 0 || how->chunk == 0 || how->chunk >= how->rows) return o_.backend->run(g, how->region, args, d_);
    std::vector<ops::HostTensor> whole;
    for (std::uint64_t lo = 0; lo < how->rows; lo += how->chunk) {
      std::uint64_t hi = std::min(how->rows, lo + how->chunk);
      std::vector<ops::HostTensor> part(args.begin(), args.end());
      for (std::size_t i = 0; i < part.size(); ++i)
        if (i < how->split.size() && how->split[i]) {
          part[i] = rows_of(args[i], lo, hi);
          meter_allocate(part[i]);
        }
      auto res = o_.backend->run(g, how->region, part, d_);
      for (std::size_t i = 0; i < part.size(); ++i)
        if (i < how->split.size() && how->split[i]) meter_release(part[i]);
      if (!res) return std::nullopt;
      for (const auto& t : *res) meter_allocate(t);
      if (whole.empty())
        for (const auto& t : *res) {
          ops::Extents shape = t.shape();
          shape.at(0) = how->rows;
          whole.emplace_back(t.dtype(), shape);
          meter_allocate(whole.back());
        }
      for (std::size_t k = 0; k < res->size(); ++k) {
        const auto& t = (*res)[k];
        std::size_t row = t.bytes().size() / std::max<std::uint64_t>(1, t.shape().at(0));
        std::copy(t.bytes().begin(), t.bytes().end(), whole[k].bytes().begin() + static_cast<std::ptrdiff_t>(lo * row));
        meter_release(t);
      }
    }
    for (const auto& t : whole) meter_release(t);  // the slots take them over
    return whole;
  }
  static ops::HostTensor rows_of(const ops::HostTensor& t, std::uint64_t lo, std::uint64_t hi) {
    ops::Extents shape = t.shape();
    std::size_t row = t.bytes().size() / shape.at(0);
    shape[0] = hi - lo;
    auto b = t.bytes().subspan(lo * row, (hi - lo) * row);
    return ops::HostTensor(t.dtype(), shape, std::vector<std::uint8_t>(b.begin(), b.end()));
  }

  const block::Program& p_;
  SourceMap& sources_;
  DiagnosticSink& d_;
  const ExecOptions& o_;
  std::ostream& out_;
  std::map<const block::Function*, SlotDrops> drops_;  // without options.cache
};

}  // namespace

std::optional<std::vector<ops::HostTensor>> execute(const block::Program& p, std::string_view entry,
                                                    std::span<const ops::HostTensor> args, SourceMap& sources,
                                                    DiagnosticSink& diags, const ExecOptions& options) {
  const block::Function* f = p.find(entry);
  if (!f) {
    std::string names;
    for (const auto& fn : p.functions)
      if (fn.exported) names += (names.empty() ? "" : ", ") + fn.name;
    diags.error("X0004", "no function `" + std::string(entry) + "` in module `" + p.module + "`")
        .note("exported functions: " + (names.empty() ? std::string("none") : names));
    return std::nullopt;
  }
  RUNG_CHECK(options.backend != nullptr, "execute needs ExecOptions::backend (a backend from the registry)");
  // The entry's arguments are held for the whole run (memory meter).
  for (const auto& a : args) meter_allocate(a);
  auto result = Executor(p, sources, diags, options).call(*f, args, 0);
  for (const auto& a : args) meter_release(a);
  return result;
}

}  // namespace rung::runtime
