// `rung run`: execute a program on a backend and print what came out (hashes, and with
// --out the tensors as .npy files).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "cli_checks.h"
#include "command.h"
#include "base/file_io.h"
#include "backends/reference/memory_meter.h"
#include "conformance/harness.h"
#include "conformance/run_session.h"
#include "conformance/shadow.h"
#include "ir/block/fingerprint.h"
#include "plan/memory_plan.h"
#include "plan/size.h"
#include "plan/split_policy.h"
#include "program_loader.h"
#include "progress_printer.h"
#include "runtime/backend_registry.h"
#include "runtime/interpreter.h"
#include "runtime/memory_model.h"
#include "runtime/npy.h"
#include "runtime/numpy_repr.h"
#include "runtime/tensor_hash.h"

namespace rung::cli {
namespace {

struct RunArgs {
  std::string file, entry, backend = "reference", out_dir;
  std::string stream, binding_limit;  // execute the plan's splits
  LoadOptions load;
  std::vector<std::string> args;
  std::vector<std::string> data_dirs;
  bool json = false;
  std::string receipts = "conform";  // require | conform | ignore (conformance/exec_policy.h)
  std::uint64_t offload_threshold = 0;  // regions below this many input elements stay on the host
  bool shadow = false;  // every region also on the reference, differing ops named (conformance/shadow.h)
  bool print = false;   // also print each output's values as NumPy's repr prints them
};

// Binds `--arg NAME=FILE.npy` to the entry's parameter slots by name. A struct's fields are
// named as in the source, `p.w1` (a tuple's elements `t.0`); anything else is C0014 with the
// names it could have meant.
std::optional<std::size_t> find_param(const block::Function& fn, const std::string& entry, const std::string& name,
                                      DiagnosticSink& diags) {
  std::vector<std::string> names;
  for (auto id : fn.params) names.push_back(fn.slots[id].name);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  std::vector<std::string> fields;  // the leaves under `name.` (a struct or tuple parameter)
  for (const auto& n : names)
    if (n.size() > name.size() && n.compare(0, name.size(), name) == 0 && n[name.size()] == '.') fields.push_back(n);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  if (!fields.empty()) {
    std::string each;
    for (const auto& f : fields) each += (each.empty() ? "" : " ") + ("--arg " + f + "=FILE.npy");
    diags.error("C0014", "`" + name + "` of `" + entry + "` has several fields: bind each by name").note(each);
    return std::nullopt;
  }
  auto& d = diags.error("C0014", "`" + entry + "` has no parameter `" + name + "`");
  // `p.0`: the index form of a struct field, which is bound by its name.
  auto dot = name.rfind('.');
  std::string base = dot == std::string::npos ? "" : name.substr(0, dot), idx = dot == std::string::npos ? "" : name.substr(dot + 1);
  std::vector<std::string> under;
  for (const auto& n : names)
    if (!base.empty() && n.size() > base.size() && n.compare(0, base.size(), base) == 0 && n[base.size()] == '.') under.push_back(n);
  if (!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos && !under.empty()) {
    std::size_t k = std::stoul(idx.substr(0, 9));
    if (k < under.size()) d.note("struct fields are bound by name: did you mean `" + under[k] + "`?");
    else d.note("struct fields are bound by name");
  } else if (auto near = closest_choice(name, names); !near.empty()) {
    d.note("did you mean `" + near + "`?");
  }
  d.note("parameters: " + (list.empty() ? std::string("none") : list));
  return std::nullopt;
}

int run(const RunArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  if (!check_tier_option(a.load.tier, diags)) return report(diags, sources, global);
  auto program = load_program(a.file, a.load, sources, diags);
  if (!program) return report(diags, sources, global);
  // Entry: --entry (an exported function), else the only exported function.
  std::string entry = a.entry;
  std::vector<std::string> exported;
  for (const auto& f : program->functions)
    if (f.exported) exported.push_back(f.name);
  std::sort(exported.begin(), exported.end());
  std::string exported_list;
  for (const auto& n : exported) exported_list += (exported_list.empty() ? "" : ", ") + n;
  if (exported_list.empty()) exported_list = "none";
  if (entry.empty()) {
    if (exported.size() != 1) {
      diags.error("C0013", "choose an entry point with --entry NAME").note("exported: " + exported_list);
      return report(diags, sources, global);
    }
    entry = exported[0];
  }
  const block::Function* fn = program->find(entry);
  if (!fn) {
    auto& d = diags.error("X0004", "no function `" + entry + "` in `" + program->module + "`");
    if (auto near = closest_choice(entry, exported); !near.empty()) d.note("did you mean `" + near + "`?");
    d.note("exported: " + exported_list);
    return report(diags, sources, global);
  }
  if (!fn->exported) {  // a helper is no entry point: only what `export` declares is run
    diags.error("C0021", "`" + entry + "` is not exported, so it is not an entry point of `" + program->module + "`")
        .note("exported: " + exported_list)
        .note("to run it, declare it `export fn " + entry + "`");
    return report(diags, sources, global);
  }
  // The run's tier: --tier, else the entry's own declaration (`override tier fast;` in its
  // body), else the program's.
  const std::string tier_name = a.load.tier.empty() ? program->tier_of(*fn) : program->determinism.tier;
  auto tier = ops::tier_from_name(tier_name);
  if (!tier) {
    diags.error("C0012", "unknown tier `" + tier_name + "` (debug, prod or fast)");
    return report(diags, sources, global);
  }

  // Arguments: name=path.npy, matched to parameters by name.
  std::vector<std::optional<ops::HostTensor>> args(fn->params.size());
  std::vector<std::string> origins(fn->params.size());
  for (const auto& spec : a.args) {
    auto eq = spec.find('=');
    if (eq == std::string::npos) {
      diags.error("C0014", "--arg expects NAME=FILE.npy, got `" + spec + "`");
      continue;
    }
    auto i = find_param(*fn, entry, spec.substr(0, eq), diags);
    if (!i) continue;
    args[*i] = npy::load(spec.substr(eq + 1), sources, diags);
    origins[*i] = spec.substr(eq + 1);
  }
  std::vector<ops::HostTensor> given;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) {
      if (!diags.has_errors())
        diags.error("C0014", "missing --arg " + fn->slots[fn->params[i]].name + "=FILE.npy (" +
                                 fn->slots[fn->params[i]].type.to_string() + ")");
      continue;
    }
    given.push_back(*args[i]);
  }
  // The output folder is made and checked before the run, so a bad --out loses no work.
  if (!a.out_dir.empty())
    if (auto why = make_writable_dir(a.out_dir))
      diags.error("C0003", "--out: cannot write to `" + a.out_dir + "`: " + *why);
  if (diags.has_errors()) return report(diags, sources, global);

  auto op_backend = runtime::backend_registry().create(a.backend, *tier, diags);
  if (!op_backend) return report(diags, sources, global);
  // A backend that is not exact-capable (webgpu) refuses an explicit request for bit-exact
  // agreement (`--tolerance exact`); a program that merely declares `tolerance exact` or tier
  // debug runs convergent, judged per op by the backend-declared agreement, and says so.
  if (!op_backend->exact_capable()) {
    std::string why = "backend `" + a.backend + "` is not exact-capable: its bits can differ between devices (" +
                      conformance::agreement_description(*op_backend, *tier) + ")";
    if (a.load.tolerance == "exact") {
      diags.error("A0020", "--tolerance exact asks for the same bits on every device, which backend `" + a.backend + "` cannot give")
          .note(why)
          .note("for bit-exact results use --backend cpu or reference; without --tolerance exact the run is convergent");
      return report(diags, sources, global);
    }
    if (program->determinism.tolerance == "exact" || tier_name == "debug")
      diags.warning("A0021", "`" + program->module + "` declares tier " + tier_name + ", tolerance " +
                                 program->determinism.tolerance + "; on backend `" + a.backend + "` the run is convergent, not replayable")
          .note(why)
          .note("the run record says `convergent` and names its class; --backend cpu or reference replays bit for bit");
  }
  // The policy checks receipts and decides each region's placement; the record keeps both.
  conformance::Store store;
  conformance::PolicyConfig placement;
  placement.min_device_elems = a.offload_threshold;
  auto session =
      conformance::RunSession::open(*program, *op_backend, *conformance::receipt_mode_from_name(a.receipts), store, diags, placement,
                                    stderr_progress());
  if (!session) return report(diags, sources, global);
  runtime::ComputeBackend* backend = &session->backend();
  std::unique_ptr<conformance::ShadowComputeBackend> shadow;
  if (a.shadow) shadow = std::make_unique<conformance::ShadowComputeBackend>(*backend, *op_backend, *tier);
  runtime::ExecOptions eo;
  eo.backend = shadow ? shadow.get() : backend;
  eo.base_dir = std::filesystem::path(a.file).parent_path().string();
  // Data files the program reads by a relative path: next to the program, else in the
  // --data-dir folders, else in those of RUNG_DATA_PATH (':'-separated).
  eo.data_dirs = a.data_dirs;
  if (const char* env = std::getenv("RUNG_DATA_PATH"))
    for (std::string_view rest = env; !rest.empty();) {
      auto colon = rest.find(':');
      if (colon != 0) eo.data_dirs.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  eo.out = a.json ? &std::cerr : &std::cout;
  eo.progress = print_loop_progress;
  eo.arg_origins = origins;
  std::vector<std::string> reads;
  eo.reads = &reads;
  // The memory plan first (symbolic dims bound from the arguments), then the run metered.
  plan::PlanOptions po;
  po.entry = entry;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const TensorType& t = fn->slots[fn->params[i]].type;
    for (std::size_t d = 0; d < t.shape.size() && d < given[i].rank(); ++d)
      if (!t.shape[d].is_static()) po.dims.emplace(t.shape[d].name(), given[i].shape()[d]);
  }
  if (!a.stream.empty()) {
    auto v = plan::parse_size(a.stream);
    if (!v || *v == 0) diags.error("L0008", "--stream expects a row count, got `" + a.stream + "`");
    else po.stream_rows = *v;
  }
  if (!a.binding_limit.empty()) {
    auto v = plan::parse_size(a.binding_limit);
    if (!v || *v == 0) diags.error("L0008", "--binding-limit expects a size such as 128MiB, got `" + a.binding_limit + "`");
    else po.binding_limit = *v;
  }
  if (diags.has_errors()) return report(diags, sources, global);
  // A device backend's own buffers (uploads, its layout, kernel scratch, read-back staging)
  // for the regions the policy keeps on it; its buffers are metered too (GpuBuffer).
  if ((po.device_model = runtime::device_memory_model(a.backend)))
    po.on_device = [&](const Graph& g, RegionId r) { return conformance::placed_on_device(g, r, *op_backend); };
  auto policy = plan::make_split_policy(program->graph, po, diags);
  if (!policy) return report(diags, sources, global);
  eo.split = *policy;
  DiagnosticSink plan_diags;
  auto memory_plan = plan::plan_program(*program, po, plan_diags);
  if (memory_plan && !a.json)
    for (const auto& st : memory_plan->streams)
      std::printf("%s\n", st.chunk ? ("streamed     `" + st.region + "`: " + std::to_string(st.rows) + " rows in chunks of " +
                                       std::to_string(st.chunk)).c_str()
                                   : ("not streamed " + st.why + " (runs whole)").c_str());
  reference::MemoryMeter meter;
  std::optional<std::vector<ops::HostTensor>> outputs;
  {
    reference::ScopedMeter scope(&meter);
    outputs = runtime::execute(*program, entry, given, sources, diags, eo);
  }
  if (!outputs) return report(diags, sources, global);
  nlohmann::json jmem = {{"measured_peak", meter.peak()}};
  std::string mem_line = "memory       measured " + std::to_string(meter.peak()) + " bytes";
  if (memory_plan) {
    double delta = memory_plan->peak ? 100.0 * (static_cast<double>(meter.peak()) - static_cast<double>(memory_plan->peak)) /
                                           static_cast<double>(memory_plan->peak)
                                     : 0.0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "memory       planned %llu, measured %llu bytes (delta %+.2f%%)",
                  static_cast<unsigned long long>(memory_plan->peak), static_cast<unsigned long long>(meter.peak()), delta);
    mem_line = buf;
    if (!memory_plan->left_out.empty()) {
      mem_line += "; host and " + a.backend + " buffers, not counted: " + memory_plan->left_out;
      jmem["not_counted"] = memory_plan->left_out;
    }
    jmem["planned_peak"] = memory_plan->peak;
    jmem["delta_percent"] = delta;
  } else if (!plan_diags.empty()) {
    mem_line += " (no plan: " + plan_diags.all().front().code + " " + plan_diags.all().front().message + ")";
  }

  std::vector<std::string> output_names;
  for (std::size_t i = 0; i < outputs->size(); ++i) output_names.push_back(fn->slots[fn->results[i]].name);
  conformance::RunInvocation inv{a.file, entry, a.load.tier, a.load.tolerance, a.backend, a.args};
  inv.data_dirs = eo.data_dirs;
  inv.stream_option = a.stream;
  inv.binding_limit_option = a.binding_limit;
  inv.offload_threshold = a.offload_threshold;
  inv.reads = std::move(reads);
  auto record = session->close(inv, *program, *outputs, output_names, diags);
  std::string record_id = record ? record->hex() : "";
  nlohmann::json jout = nlohmann::json::array();
  // `fingerprint` is the program's (graph and BlockIR: ir/block/fingerprint.h), `graph` the GraphIR's alone.
  std::string fingerprint = block::program_fingerprint(*program).hex(), graph_fp = program->graph.fingerprint().hex(),
              blockir = program->hash().hex();
  if (!a.json) {
    std::printf("fingerprint  %s\ngraph        %s\nblockir      %s\nentry        %s (tier %s, backend %s)\n", fingerprint.c_str(),
                graph_fp.c_str(), blockir.c_str(), entry.c_str(), tier_name.c_str(), backend->name().data());
    std::printf("%s\n", mem_line.c_str());
    // Regions the policy placed off the requested backend (host scalars, capability, budget,
    // load threshold): visible here and kept in the record.
    for (const auto& d : session->record().decisions)
      if (d.backend != a.backend)
        std::printf("placement    %s -> %s: %s%s\n", d.scope.c_str(), d.backend.c_str(), d.reason.c_str(),
                    d.times > 1 ? (" (x" + std::to_string(d.times) + ")").c_str() : "");
    if (shadow) std::printf("%s\n", shadow->summary_line().c_str());
    if (const auto& t = session->record().transfers)  // a device backend: what crossed the bus (kept in the record)
      std::printf("transfers    to device %llu bytes in %llu uploads, from device %llu bytes in %llu downloads\n",
                  static_cast<unsigned long long>(t->to_device_bytes), static_cast<unsigned long long>(t->uploads),
                  static_cast<unsigned long long>(t->from_device_bytes), static_cast<unsigned long long>(t->downloads));
    // Fused elementwise regions a device backend generated kernels for, and any it ran op by op.
    if (auto kernels = op_backend->generated_kernels(); !kernels.empty()) {
      std::set<std::string> distinct;
      std::vector<std::string> detours;
      for (const auto& [region, id] : kernels) {
        if (id.rfind("op by op", 0) == 0) detours.push_back(region + ": " + id);
        else distinct.insert(id);
      }
      std::printf("fused        %zu regions as one generated kernel each (%zu distinct kernels), %zu op by op\n",
                  kernels.size() - detours.size(), distinct.size(), detours.size());
      for (const auto& d : detours) std::printf("fused        %s\n", d.c_str());
    }
  }
  // Backends that cannot replay bits across devices say what a run is (convergent) and name the class.
  std::string repro;
  if (!op_backend->exact_capable()) {
    const auto& rec = session->record();
    repro = std::string(rec.replayable ? "replayable" : "convergent (class " + rec.convergence_class + ")");
    const runtime::DeviceProfile prof = op_backend->profile();
    if (auto it = prof.facts.find("reproducibility"); it != prof.facts.end()) repro += "; " + it->second;
    repro += "; each op judged by " + conformance::agreement_description(*op_backend, *tier) + " on " + prof.device;
  }
  if (!a.json && !repro.empty()) std::printf("reproducible %s\n", repro.c_str());
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    const auto& t = (*outputs)[i];
    std::string name = fn->slots[fn->results[i]].name;
    std::string h = tensor_hash(t).hex();
    std::string path;
    if (!a.out_dir.empty()) {
      path = (std::filesystem::path(a.out_dir) / (name + ".npy")).string();
      npy::save(path, t, diags);
    }
    std::optional<std::string> value;
    if (a.print) value = runtime::numpy_repr(t).value_or("(" + std::string(dtype_name(t.dtype())) + " blocks: not printed)");
    if (a.json) {
      jout.push_back({{"name", name}, {"type", t.type().to_string()}, {"sha3_256", h}, {"file", path}});
      if (value) jout.back()["value"] = *value;
    } else {
      std::printf("output %zu     %s: %s  sha3 %s%s\n", i, name.c_str(), t.type().to_string().c_str(), h.c_str(),
                  path.empty() ? "" : ("  -> " + path).c_str());
      if (value) std::printf("%s\n", value->c_str());
    }
  }
  if (!a.json && record) std::printf("record       %s\n", record_id.c_str());
  if (a.json) {
    nlohmann::json j{{"fingerprint", fingerprint}, {"graph_fingerprint", graph_fp}, {"blockir", blockir}, {"entry", entry},
                     {"tier", tier_name}, {"backend", backend->name()}, {"outputs", jout}, {"memory", jmem},
                     {"record", record_id}, {"record_details", session->record().to_json()}};
    if (!repro.empty()) j["reproducibility"] = repro;
    if (shadow) {
      nlohmann::json jf = nlohmann::json::array();
      for (const auto& f : shadow->summary().findings)
        jf.push_back({{"region", f.region}, {"execution", f.execution}, {"output", f.output}, {"nodes", f.nodes}});
      j["shadow"] = {{"regions_checked", shadow->summary().regions_checked},
                     {"regions_differing", shadow->summary().regions_differing}, {"findings", jf}};
    }
    std::cout << j.dump(2) << "\n";
  }
  return report(diags, sources, global);
}

RUNG_COMMAND("run", "Execute a program and print its outputs' hashes (with --print, their values)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<RunArgs>();
               sub.add_option("FILE", a->file, "the program: a .rung source, a .keg file or a workflow .json document")->required();
               sub.add_option("--entry", a->entry, "the exported function to run (default: the only one)");
               sub.add_option("--arg", a->args,
                              "an argument: NAME=FILE.npy, one per parameter; a struct's fields by name (p.w1=w1.npy)");
               // Checked by the command (C0012), not by CLI11, so that a wrong tier is a coded diagnostic.
               sub.add_option("--tier", a->load.tier, "determinism tier: debug | prod | fast (required for .keg files)");
               sub.add_option("--tolerance", a->load.tolerance, "tolerance class: exact | tight | default | loose")
                   ->check(CLI::IsMember({"exact", "tight", "default", "loose"}));
               // The CPU backend is the default wherever this build has it (else the reference).
               if (runtime::backend_registry().find("cpu")) a->backend = "cpu";
               std::string backends;
               for (const auto& n : runtime::backend_registry().names()) {
                 const auto* f = runtime::backend_registry().find(n);
                 backends += "\n  " + n + (f && !f->summary.empty() ? ": " + f->summary : "");
               }
               sub.add_option("--backend", a->backend, "where to run; the backends of this build:" + backends)->capture_default_str();
               sub.add_option("--out", a->out_dir, "write each output as DIR/NAME.npy");
               sub.add_option("--data-dir", a->data_dirs,
                              "a folder where relative data paths (read_csv) are looked up when not next to the program; repeatable");
               sub.add_option("--stream", a->stream, "run computations on more rows in chunks of ROWS (row-local regions; the plan says which)");
               sub.add_option("--binding-limit", a->binding_limit, "split dispatches binding more than SIZE, as the plan does (L0010 if one cannot be)");
               sub.add_flag("--json", a->json, "print the result as JSON (program prints go to stderr)");
               sub.add_flag("--print", a->print,
                            "also print each output's values as NumPy's repr does (more than 1000 elements summarised with ...)");
               sub.add_option("--receipts", a->receipts,
                              "kernels without a conformance receipt for this device: require (refuse), conform (check now), ignore (run unverified)")
                   ->check(CLI::IsMember({"require", "conform", "ignore"}))->capture_default_str();
               sub.add_option("--offload-threshold", a->offload_threshold,
                              "regions with fewer input elements run on the host instead of a GPU backend (0: off)");
               sub.add_flag("--shadow", a->shadow,
                            "also run every region on the reference with the same inputs and name the ops whose results differ "
                            "(slow: a diagnosis of why a device disagrees)");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
