// `rung run`: execute a program on a backend and print what came out (hashes, and with
// --out the tensors as .npy files). The run itself is the public API's Session::run.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>
#include <rung/onnx.h>
#include <rung/rung.hpp>
#include <rung/util.h>

#include "command.h"
#include "progress_printer.h"
#include "run_report.h"

namespace rung::cli {
namespace {

struct RunArgs {
  std::string file, entry, backend = "reference", out_dir;
  std::string stream, binding_limit;  // execute the plan's splits
  std::string tier, tolerance;
  std::vector<std::string> args;
  std::vector<std::string> data_dirs;
  std::vector<std::string> dims, binds;  // an .onnx model's, bound at import (LoadOptions)
  bool json = false;
  std::string receipts = "conform";  // require | conform | ignore
  std::uint64_t offload_threshold = 0;  // regions below this many input elements stay on the host
  bool shadow = false;  // every region also on the reference, differing ops named
  bool print = false;   // also print each output's values as NumPy's repr prints them
};

std::optional<std::string> opt(const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); }

// Binds `--arg NAME=FILE.npy` to the entry's parameters by name. A struct's fields are named
// as in the source, `p.w1` (a tuple's elements `t.0`); anything else is C0014 with the names
// it could have meant.
std::optional<std::size_t> find_param(const EntryInfo& fn, const std::string& name, std::vector<Message>& errors) {
  std::vector<std::string> names;
  for (const auto& p : fn.params) names.push_back(p.name);
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
    errors.push_back({"C0014", Severity::Error, "`" + name + "` of `" + fn.name + "` has several fields: bind each by name", {}, {each}});
    return std::nullopt;
  }
  Message d{"C0014", Severity::Error, "`" + fn.name + "` has no parameter `" + name + "`"};
  // `p.0`: the index form of a struct field, which is bound by its name.
  auto dot = name.rfind('.');
  std::string base = dot == std::string::npos ? "" : name.substr(0, dot), idx = dot == std::string::npos ? "" : name.substr(dot + 1);
  std::vector<std::string> under;
  for (const auto& n : names)
    if (!base.empty() && n.size() > base.size() && n.compare(0, base.size(), base) == 0 && n[base.size()] == '.') under.push_back(n);
  if (!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos && !under.empty()) {
    std::size_t k = std::stoul(idx.substr(0, 9));
    if (k < under.size()) d.notes.push_back("struct fields are bound by name: did you mean `" + under[k] + "`?");
    else d.notes.push_back("struct fields are bound by name");
  } else if (auto near = closest_choice(name, names); !near.empty()) {
    d.notes.push_back("did you mean `" + near + "`?");
  }
  d.notes.push_back("parameters: " + (list.empty() ? std::string("none") : list));
  errors.push_back(std::move(d));
  return std::nullopt;
}

void add(Diagnostics& all, const Diagnostics& more) { all.append(more); }
void add(Diagnostics& all, std::vector<Message>& errors) {
  for (auto& m : errors) all.append(m.severity == Severity::Error ? Diagnostics::error(m.code, m.text, m.notes)
                                                                  : Diagnostics::warning(m.code, m.text, m.notes));
  errors.clear();
}

int run(const RunArgs& a, const GlobalOptions& global) {
  Diagnostics all;
  std::vector<Message> errors;  // the command line's own (C0014, C0003, L0008)
  CompileOptions co{opt(a.tier), opt(a.tolerance)};
  if (auto names = check_determinism_names({opt(a.tier), std::nullopt}); !names) return report(names.diagnostics(), global);
  LoadOptions lo;
  lo.dims = a.dims;
  for (const auto& spec : a.binds) {
    auto b = onnx_binding(spec);
    add(all, b.diagnostics());
    if (b) lo.bind.push_back(std::move(*b));
  }
  if (all.has_errors()) return report(all, global);
  auto module = Module::load(Source::file(a.file), lo);
  add(all, module.diagnostics());
  if (!module) return report(all, global);
  auto program = Program::compile(*module, co);
  add(all, program.diagnostics());
  if (!program) return report(all, global);
  auto entry = program->entry(a.entry);
  if (!entry) {
    add(all, entry.diagnostics());
    return report(all, global);
  }
  // Arguments: name=path.npy, matched to parameters by name.
  std::vector<std::optional<Input>> bound(entry->params.size());
  for (const auto& spec : a.args) {
    auto eq = spec.find('=');
    if (eq == std::string::npos) {
      errors.push_back({"C0014", Severity::Error, "--arg expects NAME=FILE.npy, got `" + spec + "`"});
      continue;
    }
    auto i = find_param(*entry, spec.substr(0, eq), errors);
    add(all, errors);
    if (!i) continue;
    auto t = Tensor::load_npy(spec.substr(eq + 1));
    add(all, t.diagnostics());
    if (t) bound[*i] = Input{entry->params[*i].name, std::move(*t), spec.substr(eq + 1)};
  }
  Inputs inputs;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    if (!bound[i]) {
      if (!all.has_errors()) {
        errors.push_back({"C0014", Severity::Error,
                          "missing --arg " + entry->params[i].name + "=FILE.npy (" + entry->params[i].type + ")"});
        add(all, errors);
      }
      continue;
    }
    inputs.push_back(std::move(*bound[i]));
  }
  // The output folder is made and checked before the run, so a bad --out loses no work.
  if (!a.out_dir.empty())
    if (auto why = make_writable_dir(a.out_dir))
      errors.push_back({"C0003", Severity::Error, "--out: cannot write to `" + a.out_dir + "`: " + *why});
  add(all, errors);
  if (all.has_errors()) return report(all, global);

  SessionOptions so;
  so.backend = a.backend;
  so.receipts = a.receipts == "require" ? Receipts::require : a.receipts == "ignore" ? Receipts::ignore : Receipts::conform;
  so.offload_threshold = a.offload_threshold;
  so.shadow = a.shadow;
  so.progress = run_progress();
  std::FILE* prints = a.json ? stderr : stdout;
  so.print = [prints](std::string_view text) { std::fwrite(text.data(), 1, text.size(), prints); };
  auto session = Session::open(*program, so);
  add(all, session.diagnostics());
  if (!session) return report(all, global);

  RunOptions ro;
  ro.data_dirs = a.data_dirs;
  ro.stream_option = a.stream;
  ro.binding_limit_option = a.binding_limit;
  if (!a.stream.empty()) {
    auto v = parse_size(a.stream);
    if (!v || *v == 0) errors.push_back({"L0008", Severity::Error, "--stream expects a row count, got `" + a.stream + "`"});
    else ro.stream_rows = *v;
  }
  if (!a.binding_limit.empty()) {
    auto v = parse_size(a.binding_limit);
    if (!v || *v == 0)
      errors.push_back({"L0008", Severity::Error, "--binding-limit expects a size such as 128MiB, got `" + a.binding_limit + "`"});
    else ro.binding_limit = *v;
  }
  add(all, errors);
  if (all.has_errors()) return report(all, global);
  if (!a.json)
    ro.on_plan = [](const std::vector<StreamStats>& streams) { print_streams(streams, stdout); };
  auto result = session->run(entry->name, inputs, ro);
  add(all, result.diagnostics());
  if (!result) return report(all, global);
  const RunResult& r = *result;

  if (!a.json) print_run_text(r, a.backend, stdout);
  nlohmann::json jout = nlohmann::json::array();
  std::vector<Message> io;
  for (std::size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& [name, t] = r.outputs[i];
    std::string path;
    if (!a.out_dir.empty()) {
      path = (std::filesystem::path(a.out_dir) / (name + ".npy")).string();
      add(all, t.save_npy(path).diagnostics());
    }
    std::optional<std::string> value;
    if (a.print) value = t.numpy_repr();
    if (a.json) {
      jout.push_back({{"name", name}, {"type", t.type()}, {"sha3_256", t.hash()}, {"file", path}});
      if (value) jout.back()["value"] = *value;
    } else {
      print_output_line(i, r.outputs[i], path, stdout);
      if (value) std::printf("%s\n", value->c_str());
    }
  }
  if (!a.json && !r.record.id.empty()) std::printf("record       %s\n", r.record.id.c_str());
  if (a.json) {
    nlohmann::json j{{"fingerprint", r.fingerprint}, {"graph_fingerprint", r.graph_fingerprint}, {"blockir", r.blockir},
                     {"entry", r.entry}, {"tier", r.tier}, {"backend", r.backend}, {"outputs", jout},
                     {"memory", memory_json(r.stats.memory)}, {"record", r.record.id},
                     {"record_details", nlohmann::json::parse(r.record.json)}};
    if (!r.reproducibility.empty()) j["reproducibility"] = r.reproducibility;
    if (r.stats.shadow)
      j["shadow"] = {{"regions_checked", r.stats.shadow->regions_checked}, {"regions_differing", r.stats.shadow->regions_differing},
                     {"findings", nlohmann::json::parse(r.stats.shadow->findings_json)}};
    std::cout << j.dump(2) << "\n";
  }
  return report(all, global);
}

RUNG_COMMAND("run", "Execute a program and print its outputs' hashes (with --print, their values)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<RunArgs>();
               sub.add_option("FILE", a->file, "the program: a .rung source, a .keg file, a workflow .json document or an .onnx model")->required();
               sub.add_option("--entry", a->entry, "the exported function to run (default: the only one)");
               sub.add_option("--arg", a->args,
                              "an argument: NAME=FILE.npy, one per parameter; a struct's fields by name (p.w1=w1.npy)");
               // Checked by the command (C0012), not by CLI11, so that a wrong tier is a coded diagnostic.
               sub.add_option("--dim", a->dims, "an .onnx model's symbolic dim bound at import, NAME=EXTENT (repeatable; as rung import)");
               sub.add_option("--bind", a->binds,
                              "an .onnx model's graph input made a constant at import, NAME=FILE.npy (repeatable; as rung import): "
                              "it is no longer an --arg");
               sub.add_option("--tier", a->tier, "determinism tier: debug | prod | fast (required for .keg files)");
               sub.add_option("--tolerance", a->tolerance, "tolerance class: exact | tight | default | loose")
                   ->check(CLI::IsMember({"exact", "tight", "default", "loose"}));
               // The CPU backend is the default wherever this build has it (else the reference).
               std::string backends;
               for (const auto& b : rung::backends()) {
                 if (b.name == "cpu") a->backend = "cpu";
                 backends += "\n  " + b.name + (!b.summary.empty() ? ": " + b.summary : "");
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
