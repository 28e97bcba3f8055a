// Session: what `rung run` orchestrated (tools/rung/cmd_run.cpp before the API), as a library
// call. Open checks receipts for the program's ops on the backend; run binds named inputs,
// plans memory and splits, executes under the placement policy, and makes the record.
#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <streambuf>

#include "api/backend_settings.h"
#include "api/impl.h"
#include "base/hash.h"
#include "conformance/harness.h"
#include "conformance/run_session.h"
#include "conformance/shadow.h"
#include "conformance/store.h"
#include "ops/tier.h"
#include "plan/memory_plan.h"
#include "plan/split_policy.h"
#include "rung/session.h"
#include "runtime/backend_registry.h"
#include "runtime/interpreter.h"
#include "runtime/memory_meter.h"
#include "runtime/memory_model.h"
#include "runtime/tensor_hash.h"

namespace rung {

namespace fs = std::filesystem;

namespace {

// A program's prints, handed to the callback a line at a time (and what is left at the end).
class CallbackBuf final : public std::streambuf {
 public:
  explicit CallbackBuf(const PrintCallback& cb) : cb_(cb) {}
  ~CallbackBuf() override { flush_line(); }
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return 0;
    line_.push_back(static_cast<char>(c));
    if (c == '\n') flush_line();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }
  int sync() override {
    flush_line();
    return 0;
  }

 private:
  void flush_line() {
    if (!line_.empty() && cb_) cb_(line_);
    line_.clear();
  }
  const PrintCallback& cb_;
  std::string line_;
};

Progress public_progress(const runtime::Progress& p) {
  return {p.phase, p.done, p.total, p.item, p.elapsed_s, p.finished};
}

}  // namespace

struct Session::Impl {
  Program program;
  SessionOptions opts;
  conformance::Store store;
  conformance::ReceiptMode mode = conformance::ReceiptMode::conform;
  struct AtTier {
    std::unique_ptr<runtime::OpBackend> backend;
    std::unique_ptr<conformance::RunSession> run;
  };
  std::map<ops::Tier, AtTier> tiers;  // an entry may declare its own tier: a backend for each
  std::mutex busy;
  SourceMap sources;  // the module's, plus what runs read (their diagnostics point here)
  const conformance::RunSession* last = nullptr;  // the last run's (api::last_record)
  std::map<std::string, EntryInfo, std::less<>> entries;  // checked entries, by name ("" too)
  // Plans depend on the entry, the bound dims and the split options only: made once each.
  struct Planned {
    std::optional<runtime::SplitPolicy> policy;
    DiagnosticSink diags;  // make_split_policy's
    std::optional<plan::MemoryPlan> memory;
    DiagnosticSink plan_diags;
  };
  std::map<std::string, Planned> plans;
  runtime::ExecCache exec_cache;  // what runs of this program reuse (slot lifetimes)

  CallbackBuf printbuf{opts.print};  // the program's prints, to opts.print (none: a stream that drops them)
  std::ostream printer{opts.print ? &printbuf : nullptr};

  Impl(Program p, SessionOptions o) : program(std::move(p)), opts(std::move(o)), store(opts.environment.home) {}

  // A backend that is not exact-capable (webgpu) refuses an explicit request for bit-exact
  // agreement; a program that merely declares it runs convergent and says so (once a tier).
  bool check_exactness(const runtime::OpBackend& b, ops::Tier tier, DiagnosticSink& diags) const {
    if (b.exact_capable()) return true;
    const block::Program& p = program.impl().program;
    const std::string tier_name(ops::tier_name(tier));
    std::string why = "backend `" + opts.backend + "` is not exact-capable: its bits can differ between devices (" +
                      conformance::agreement_description(b, tier) + ")";
    if (program.impl().tolerance_option == "exact") {
      diags.error("A0020", "--tolerance exact asks for the same bits on every device, which backend `" + opts.backend + "` cannot give")
          .note(why)
          .note("for bit-exact results use --backend cpu or reference; without --tolerance exact the run is convergent");
      return false;
    }
    if (p.determinism.tolerance == "exact" || tier_name == "debug")
      diags.warning("A0021", "`" + p.module + "` declares tier " + tier_name + ", tolerance " + p.determinism.tolerance +
                                 "; on backend `" + opts.backend + "` the run is convergent, not replayable")
          .note(why)
          .note("the run record says `convergent` and names its class; --backend cpu or reference replays bit for bit");
    return true;
  }

  // The backend and receipts session at `tier`, made on first use.
  AtTier* at(ops::Tier tier, DiagnosticSink& diags) {
    if (auto it = tiers.find(tier); it != tiers.end()) return &it->second;
    AtTier t;
    runtime::BackendSettings settings = api::backend_settings(opts.environment);
    t.backend = runtime::backend_registry().create(opts.backend, tier, diags, settings);
    if (!t.backend) return nullptr;
    if (!check_exactness(*t.backend, tier, diags)) return nullptr;
    conformance::PolicyConfig placement;
    placement.min_device_elems = opts.offload_threshold;
    runtime::ProgressFn progress;
    if (opts.progress) progress = [cb = opts.progress](const runtime::Progress& p) { cb(public_progress(p)); };
    t.run = conformance::RunSession::open(program.impl().program, *t.backend, mode, store, settings, diags, placement, progress);
    if (!t.run) return nullptr;
    return &tiers.emplace(tier, std::move(t)).first->second;
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

const Program& Session::program() const { return impl_->program; }
const std::string& Session::backend() const { return impl_->opts.backend; }

bool Session::exact_capable() const {
  for (const auto& [tier, t] : impl_->tiers) return t.backend->exact_capable();
  return true;
}

std::string Session::agreement() const {
  for (const auto& [tier, t] : impl_->tiers) return conformance::agreement_description(*t.backend, tier);
  return {};
}

std::vector<BackendInfo> backends() {
  std::vector<BackendInfo> out;
  for (const auto& n : runtime::backend_registry().names()) {
    const auto* f = runtime::backend_registry().find(n);
    out.push_back({n, f ? f->summary : std::string()});
  }
  return out;
}

const Tensor* RunResult::output(std::string_view name) const {
  for (const auto& o : outputs)
    if (o.name == name) return &o.tensor;
  return nullptr;
}

Result<Session> Session::open(const Program& program, const SessionOptions& options) {
  auto impl = std::make_unique<Impl>(program, options);
  const auto& modules = program.impl().module.impl();
  impl->sources = *modules.sources;
  DiagnosticSink diags;
  switch (options.receipts) {
    case Receipts::require: impl->mode = conformance::ReceiptMode::require; break;
    case Receipts::conform: impl->mode = conformance::ReceiptMode::conform; break;
    case Receipts::ignore: impl->mode = conformance::ReceiptMode::ignore; break;
  }
  auto tier = ops::tier_from_name(program.tier());
  if (!tier) {
    diags.error("C0012", "unknown tier `" + program.tier() + "` (debug, prod or fast)");
    return api::diagnostics_of(diags, impl->sources);
  }
  // The backend for the program's tier now (receipts checked at open), unless every entry
  // declares its own tier: those are made by the first run that needs them.
  bool program_tier_used = program.entries().empty() || !program.impl().tier_option.empty();
  for (const auto& e : program.entries()) program_tier_used |= e.tier == program.tier();
  if (program_tier_used && !impl->at(*tier, diags)) return api::diagnostics_of(diags, impl->sources);
  Diagnostics warnings = api::diagnostics_of(diags, impl->sources);
  return Result<Session>(Session(std::move(impl)), std::move(warnings));
}

namespace {

// Binds the inputs to the entry's parameters by name; those given in memory are checked here
// (M0001..M0005), those read from a file by the run, which names the file (X0001).
std::optional<std::vector<ops::HostTensor>> bind_inputs(const block::Function& fn, const Inputs& inputs,
                                                        std::vector<std::string>& origins, DiagnosticSink& diags) {
  std::vector<const Input*> by_param(fn.params.size(), nullptr);
  for (const auto& in : inputs) {
    std::size_t i = 0;
    while (i < fn.params.size() && fn.slots[fn.params[i]].name != in.name) ++i;
    if (i == fn.params.size()) {  // the messages are made only here: a run that binds pays nothing for them
      std::vector<std::string> names;
      for (auto id : fn.params) names.push_back(fn.slots[id].name);
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      auto& d = diags.error("M0001", "`" + fn.name + "` has no parameter `" + in.name + "`");
      if (auto near = closest_choice(in.name, names); !near.empty()) d.note("did you mean `" + near + "`?");
      d.note("parameters: " + (list.empty() ? std::string("none") : list));
      continue;
    }
    if (by_param[i]) {
      diags.error("M0001", "parameter `" + in.name + "` is given twice");
      continue;
    }
    by_param[i] = &in;
  }
  std::map<std::string, std::uint64_t> dims;
  std::vector<ops::HostTensor> given;
  given.reserve(fn.params.size());
  origins.assign(fn.params.size(), "");
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const block::Slot& slot = fn.slots[fn.params[i]];
    if (!by_param[i]) {
      diags.error("M0002", "parameter `" + slot.name + "` (" + slot.type.to_string() + ") has no input");
      continue;
    }
    const ops::HostTensor& t = api::host_of(by_param[i]->tensor);
    origins[i] = by_param[i]->origin;
    if (origins[i].empty()) {
      auto what = [&] { return "input `" + slot.name + "` is " + t.type().to_string() + "; `" + fn.name + "` takes " + slot.type.to_string(); };
      if (t.dtype() != slot.type.dtype) {
        diags.error("M0003", what()).note("rung never casts an input: convert it first");
        continue;
      }
      if (t.rank() != slot.type.rank()) {
        diags.error("M0004", what());
        continue;
      }
      bool ok = true;
      for (std::size_t d = 0; d < t.rank() && ok; ++d) {
        const Dim& want = slot.type.shape[d];
        if (want.is_static() && want.extent() != t.shape()[d]) {
          diags.error("M0004", what());
          ok = false;
        } else if (!want.is_static()) {
          auto [it, fresh] = dims.emplace(want.name(), t.shape()[d]);
          if (!fresh && it->second != t.shape()[d]) {
            diags.error("M0005", "dim `" + want.name() + "` is " + std::to_string(it->second) + " by an earlier input and " +
                                     std::to_string(t.shape()[d]) + " by `" + slot.name + "`");
            ok = false;
          }
        }
      }
      if (!ok) continue;
    }
    given.push_back(t.share());
  }
  if (diags.has_errors()) return std::nullopt;
  return given;
}

}  // namespace

Result<RunResult> Session::run(std::string_view entry_name, const Inputs& inputs, const RunOptions& ro) {
  std::unique_lock<std::mutex> lock(impl_->busy, std::try_to_lock);
  if (!lock.owns_lock())
    return api::fail<RunResult>("M0011", "this session is running a call on another thread",
                                {"a session serves one call at a time; open one session per thread"});
  Impl& s = *impl_;
  const Program::Impl& prog = s.program.impl();
  const block::Program& program = prog.program;
  auto known = s.entries.find(entry_name);
  if (known == s.entries.end()) {
    auto checked = s.program.entry(entry_name);
    if (!checked) return checked.diagnostics();
    known = s.entries.emplace(std::string(entry_name), *checked).first;
  }
  const EntryInfo* entry = &known->second;
  const block::Function* fn = program.find(entry->name);
  DiagnosticSink diags;
  auto fail = [&] { return Result<RunResult>(api::diagnostics_of(diags, s.sources)); };

  // The run's tier: the caller's, else the entry's own declaration, else the program's.
  const std::string tier_name = prog.tier_option.empty() ? program.tier_of(*fn) : program.determinism.tier;
  auto tier = ops::tier_from_name(tier_name);
  if (!tier) {
    diags.error("C0012", "unknown tier `" + tier_name + "` (debug, prod or fast)");
    return fail();
  }
  std::vector<std::string> origins;
  auto given = bind_inputs(*fn, inputs, origins, diags);
  if (!given) return fail();
  Impl::AtTier* at = s.at(*tier, diags);
  if (!at) return fail();
  runtime::OpBackend& op_backend = *at->backend;
  const std::string& backend_name = s.opts.backend;
  conformance::RunSession& session = *at->run;
  session.begin_run();
  s.last = &session;
  runtime::ComputeBackend* backend = &session.backend();
  std::unique_ptr<conformance::ShadowComputeBackend> shadow;
  if (s.opts.shadow) shadow = std::make_unique<conformance::ShadowComputeBackend>(*backend, op_backend, *tier);

  runtime::ExecOptions eo;
  eo.cache = &s.exec_cache;
  eo.backend = shadow ? shadow.get() : backend;
  const Source& src = prog.module.source();
  eo.base_dir = !ro.base_dir.empty() ? ro.base_dir : src.in_memory() ? std::string() : fs::path(src.path()).parent_path().string();
  eo.data_dirs = ro.data_dirs;
  eo.data_dirs.insert(eo.data_dirs.end(), s.opts.environment.data_path.begin(), s.opts.environment.data_path.end());
  eo.out = &s.printer;
  if (s.opts.progress) eo.progress = [cb = s.opts.progress](const runtime::Progress& p) { cb(public_progress(p)); };
  eo.progress_interval_s = s.opts.progress_interval_s;
  eo.arg_origins = std::move(origins);
  eo.cancel = ro.cancel;
  std::vector<std::string> reads;
  eo.reads = &reads;

  // The memory plan first (symbolic dims bound from the inputs), then the run metered.
  plan::PlanOptions po;
  po.entry = entry->name;
  for (std::size_t i = 0; i < given->size(); ++i) {
    const TensorType& t = fn->slots[fn->params[i]].type;
    for (std::size_t d = 0; d < t.shape.size() && d < (*given)[i].rank(); ++d)
      if (!t.shape[d].is_static()) po.dims.emplace(t.shape[d].name(), (*given)[i].shape()[d]);
  }
  if (ro.stream_rows) po.stream_rows = *ro.stream_rows;
  if (ro.binding_limit) po.binding_limit = *ro.binding_limit;
  // A device backend's own buffers for the regions the policy keeps on it.
  if ((po.device_model = runtime::device_memory_model(backend_name)))
    po.on_device = [b = &op_backend](const Graph& g, RegionId r) { return conformance::placed_on_device(g, r, *b); };
  std::string key = entry->name + "|" + tier_name + "|" + (po.stream_rows ? std::to_string(*po.stream_rows) : "-") + "|" +
                    std::to_string(po.binding_limit);
  for (const auto& [dim, extent] : po.dims) key += "|" + dim + "=" + std::to_string(extent);
  auto planned = s.plans.find(key);
  if (planned == s.plans.end()) {
    Impl::Planned p;
    p.policy = plan::make_split_policy(program.graph, po, p.diags);
    if (p.policy) p.memory = plan::plan_program(program, po, p.plan_diags);
    planned = s.plans.emplace(key, std::move(p)).first;
  }
  diags.append(planned->second.diags);
  if (!planned->second.policy) return fail();
  eo.split = *planned->second.policy;
  const DiagnosticSink& plan_diags = planned->second.plan_diags;
  const std::optional<plan::MemoryPlan>& memory_plan = planned->second.memory;
  RunResult result;
  if (memory_plan)
    for (const auto& st : memory_plan->streams) result.stats.streams.push_back({st.region, st.rows, st.chunk, st.why});
  if (ro.on_plan) ro.on_plan(result.stats.streams);

  runtime::MemoryMeter meter;
  std::optional<std::vector<ops::HostTensor>> outputs;
  {
    runtime::ScopedMeter scope(&meter);
    outputs = runtime::execute(program, entry->name, *given, s.sources, diags, eo);
  }
  s.printer.flush();
  if (!outputs) return fail();

  MemoryStats& mem = result.stats.memory;
  mem.measured_peak = meter.peak();
  if (memory_plan) {
    mem.planned_peak = memory_plan->peak;
    mem.delta_percent = memory_plan->peak ? 100.0 * (static_cast<double>(meter.peak()) - static_cast<double>(memory_plan->peak)) /
                                                static_cast<double>(memory_plan->peak)
                                          : 0.0;
    mem.not_counted = memory_plan->left_out;
  } else if (!plan_diags.empty()) {
    mem.no_plan = plan_diags.all().front().code + " " + plan_diags.all().front().message;
  }
  for (const auto& in : inputs) {
    if (in.tensor.borrowed()) ++result.stats.inputs_borrowed;
    if (in.tensor.impl().copied) {
      ++result.stats.inputs_copied;
      result.stats.bytes_copied += in.tensor.byte_size();
    }
  }

  std::vector<std::string> output_names;
  for (std::size_t i = 0; i < outputs->size(); ++i) output_names.push_back(fn->slots[fn->results[i]].name);
  if (s.opts.write_records) {
    conformance::RunInvocation inv{src.in_memory() ? src.name() : src.path(), entry->name, prog.tier_option, prog.tolerance_option,
                                   backend_name, {}};
    if (src.in_memory()) inv.program_bytes_hash = sha3_256(src.content());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].origin.empty()) {
        inv.arg_specs.push_back(inputs[i].name + "=" + inputs[i].origin);
        inv.arg_tensor_hashes.push_back(tensor_hash(api::host_of(inputs[i].tensor)));
      }
      else inv.memory_args.push_back({inputs[i].name, "", Hash256{}, tensor_hash(api::host_of(inputs[i].tensor))});
    }
    inv.data_dirs = eo.data_dirs;
    inv.stream_option = ro.stream_option;
    inv.binding_limit_option = ro.binding_limit_option;
    inv.offload_threshold = s.opts.offload_threshold;
    inv.reads = std::move(reads);
    auto id = session.close(inv, program, *outputs, output_names, diags);
    const conformance::RunRecord& rec = session.record();
    result.record = api::public_record(rec, id ? id->hex() : "");
    for (const auto& d : rec.decisions)
      if (d.backend != backend_name) result.stats.placements.push_back({d.scope, d.backend, d.reason, d.times});
    if (const auto& t = rec.transfers)
      result.stats.transfers = TransferStats{t->to_device_bytes, t->uploads, t->from_device_bytes, t->downloads};
  }
  result.stats.generated_kernels = op_backend.generated_kernels();
  if (shadow) {
    nlohmann::json jf = nlohmann::json::array();
    for (const auto& f : shadow->summary().findings)
      jf.push_back({{"region", f.region}, {"execution", f.execution}, {"output", f.output}, {"nodes", f.nodes}});
    result.stats.shadow = ShadowStats{shadow->summary_line(), shadow->summary().regions_checked, shadow->summary().regions_differing,
                                      jf.dump()};
  }
  if (!op_backend.exact_capable()) {
    conformance::RunRecord unwritten;  // without a record, what it would say
    unwritten.tier = tier_name;
    unwritten.tolerance = program.determinism.tolerance;
    conformance::set_reproducibility(unwritten, false);
    const auto& rec = s.opts.write_records ? session.record() : unwritten;
    result.reproducibility = rec.replayable ? "replayable" : "convergent (class " + rec.convergence_class + ")";
    const runtime::DeviceProfile prof = op_backend.profile();
    if (auto it = prof.facts.find("reproducibility"); it != prof.facts.end()) result.reproducibility += "; " + it->second;
    result.reproducibility += "; each op judged by " + conformance::agreement_description(op_backend, *tier) + " on " + prof.device;
  }
  result.entry = entry->name;
  result.tier = tier_name;
  result.backend = std::string(backend->name());
  result.fingerprint = s.program.fingerprint();
  result.graph_fingerprint = s.program.graph_fingerprint();
  result.blockir = s.program.blockir_hash();
  for (std::size_t i = 0; i < outputs->size(); ++i) result.outputs.push_back({output_names[i], api::wrap(std::move((*outputs)[i]))});
  result.warnings = api::diagnostics_of(diags, s.sources);
  if (result.warnings.has_errors()) return result.warnings;
  return Result<RunResult>(std::move(result));
}

namespace api {
const conformance::RunRecord& last_record(const Session& s) {
  static const conformance::RunRecord none;
  return s.impl().last ? s.impl().last->record() : none;
}
}  // namespace api

}  // namespace rung
