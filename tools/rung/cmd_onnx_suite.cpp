// `rung onnx-suite DIR`: ONNX test folders (the backend node tests, the PyTorch exports) run on
// one backend, or on two with their outputs compared bit for bit. Each folder holds model.onnx
// and test_data_set_N/input_K.npy (scripts/onnx-node-npy.py writes them beside the .pb files).
//   --out OUTDIR      OUTDIR/<test>/test_data_set_N/output_K.npy and status.json, the layout
//                     tests/onnx/judge.py reads (it judges against the expected outputs)
//   --compare A,B     run every test on A and on B: a test whose outputs differ in any bit is
//                     named, and the exit status is 1 (the GPU check's cpu = cuda in tier debug)
// A test whose data sets hold a value that is not a tensor (no .npy: strings, sequences,
// optionals) is "not attempted"; one rung declines at load or run is "refused" with its code.
// A load refused with I0012 naming graph inputs to bind is retried with them bound to the data
// set's values (the test is then "specialized", as the Python runner does it).
// bf16 has no numpy dtype: its .npy files hold the bit patterns as uint16, in and out.
#include <rung/onnx.h>
#include <rung/rung.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "command.h"

namespace rung::cli {
namespace {

namespace fs = std::filesystem;

struct SuiteArgs {
  std::string dir, out, compare, backend = "cpu", tier = "debug", filter;
};

struct Ran {
  std::string status = "ran";  // ran | refused | not attempted
  std::string stage, reason;
  std::vector<std::vector<Tensor>> sets;  // outputs per data set, in the entry's result order
  bool specialized = false;               // graph inputs bound at import (see run_test)
};

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix, const std::string& ext) {
  std::vector<fs::path> out;
  for (int k = 0; fs::exists(dir / (prefix + "_" + std::to_string(k) + ext)); ++k)
    out.push_back(dir / (prefix + "_" + std::to_string(k) + ext));
  return out;
}

std::vector<fs::path> data_sets(const fs::path& test) {
  std::vector<fs::path> out;
  for (int n = 0; fs::is_directory(test / ("test_data_set_" + std::to_string(n))); ++n)
    out.push_back(test / ("test_data_set_" + std::to_string(n)));
  return out;
}

// Bits reinterpreted as another dtype of the same width (uint16 .npy <-> bf16).
std::optional<Tensor> retyped(const Tensor& t, DType to) {
  const auto* p = static_cast<const std::uint8_t*>(t.data());
  auto r = Tensor::from_bytes(to, t.shape(), std::vector<std::uint8_t>(p, p + t.byte_size()));
  if (!r) return std::nullopt;
  return *r;
}

std::string first_line(const Diagnostics& d) {
  std::string text = d.text();
  return text.substr(0, text.find('\n'));
}

// The graph inputs an I0012 refusal asks to bind (its notes' stable phrase:
// `bind the graph input "NAME" at import: ...`, quotes inside NAME escaped by a backslash).
std::vector<std::string> inputs_to_bind(const Diagnostics& d) {
  static const std::string kPhrase = "bind the graph input \"";
  std::vector<std::string> names;
  for (const Message& m : d.messages()) {
    if (m.code != "I0012" || m.severity != Severity::Error) continue;
    for (const std::string& note : m.notes) {
      if (note.rfind(kPhrase, 0) != 0) continue;
      std::string name;
      std::size_t i = kPhrase.size();
      for (; i < note.size() && note[i] != '"'; ++i) name += note[i] == '\\' && i + 1 < note.size() ? note[++i] : note[i];
      if (i < note.size() && note.compare(i, 12, "\" at import:") == 0) names.push_back(name);
    }
  }
  return names;
}

// The test's inputs of one data set, keyed by graph input name (bf16 from its uint16 bits).
std::optional<std::map<std::string, Tensor>> read_inputs(const fs::path& set, const std::vector<std::string>& names,
                                                         std::string& why) {
  std::vector<fs::path> files = numbered(set, "input", ".npy");
  if (files.size() != names.size()) {
    why = "the model has " + std::to_string(names.size()) + " graph inputs; the data set has " + std::to_string(files.size());
    return std::nullopt;
  }
  std::map<std::string, Tensor> values;
  for (std::size_t k = 0; k < files.size(); ++k) {
    auto t = Tensor::load_npy(files[k].string());
    if (!t) {
      why = first_line(t.diagnostics());
      return std::nullopt;
    }
    values.emplace(names[k], *t);
  }
  return values;
}

// A test as tests/onnx/run_rung_node_tests.py runs it: a load refused with I0012 naming graph
// inputs to bind is retried with those bound to the data set's values (once per data set, as
// the values may differ), the rest passed at run time; the test is then `specialized`.
Ran run_test(const fs::path& test, const SuiteArgs& a, const std::string& backend) {
  Ran r;
  auto refuse = [&](const char* stage, const std::string& why) {
    r.status = "refused", r.stage = stage, r.reason = why;
    return r;
  };
  std::vector<fs::path> sets = data_sets(test);
  for (const auto& s : sets) {
    std::size_t pbs = 0;
    for (const auto& f : fs::directory_iterator(s)) pbs += f.path().extension() == ".pb";
    if (numbered(s, "input", ".npy").size() + numbered(s, "output", ".npy").size() < pbs) {
      r.status = "not attempted", r.stage = "load", r.reason = "an input or output is not a tensor (no .npy)";
      return r;
    }
  }
  const Source model = Source::file((test / "model.onnx").string());
  auto names = onnx_graph_inputs(model);
  if (!names) return refuse("load", first_line(names.diagnostics()));
  std::set<std::string> bound;
  std::optional<Program> program;
  for (const auto& s : sets) {
    std::string why;
    auto values = read_inputs(s, *names, why);
    if (!values) return refuse("run", why);
    if (!program || !bound.empty()) {
      program.reset();
      while (!program) {
        LoadOptions lo;
        for (const auto& n : bound) lo.bind.emplace_back(n, values->at(n));
        auto module = Module::load(model, lo);
        if (!module) {
          std::size_t before = bound.size();
          for (const auto& n : inputs_to_bind(module.diagnostics()))
            if (values->count(n)) bound.insert(n);
          if (bound.size() == before) return refuse("load", first_line(module.diagnostics()));
          continue;
        }
        CompileOptions co;
        co.tier = a.tier;
        auto compiled = Program::compile(*module, co);
        if (!compiled) return refuse("load", first_line(compiled.diagnostics()));
        program = *compiled;
      }
      r.specialized = !bound.empty();
    }
    SessionOptions so;
    so.backend = backend;
    so.receipts = Receipts::ignore;
    so.write_records = false;
    auto session = Session::open(*program, so);
    if (!session) return refuse("run", first_line(session.diagnostics()));
    const EntryInfo entry = program->entries().at(0);
    Inputs inputs;
    for (const auto& p : entry.params) {
      auto it = values->find(p.name);
      if (it == values->end() || bound.count(p.name)) return refuse("run", "the entry takes `" + p.name + "`, which no data set feeds");
      Tensor v = it->second;
      if (p.dtype == DType::bf16 && v.dtype() == DType::u16)
        if (auto b = retyped(v, DType::bf16)) v = *b;
      inputs.push_back({p.name, v});
    }
    auto result = session->run(entry.name, inputs);
    if (!result) return refuse("run", first_line(result.diagnostics()));
    std::vector<Tensor> outs;
    for (const auto& o : result->outputs) outs.push_back(o.tensor);
    r.sets.push_back(std::move(outs));
  }
  return r;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

bool write_outputs(const fs::path& out, const Ran& r, Diagnostics& diags) {
  auto unwritable = [&](const fs::path& p, const std::string& why) {
    diags.append(Diagnostics::error("C0003", "cannot write " + p.string() + ": " + why));
    return false;
  };
  std::error_code ec;
  if (fs::create_directories(out, ec), ec) return unwritable(out, ec.message());
  for (std::size_t n = 0; n < r.sets.size(); ++n) {
    fs::path set = out / ("test_data_set_" + std::to_string(n));
    if (fs::create_directories(set, ec), ec) return unwritable(set, ec.message());
    for (std::size_t k = 0; k < r.sets[n].size(); ++k) {
      const Tensor& t = r.sets[n][k];
      std::optional<Tensor> bits = t.dtype() == DType::bf16 ? retyped(t, DType::u16) : std::optional<Tensor>(t);
      Status st = bits ? bits->save_npy((set / ("output_" + std::to_string(k) + ".npy")).string()) : Status(Done{});
      if (!st) {
        diags.append(st.diagnostics());
        return false;
      }
    }
  }
  std::ofstream status(out / "status.json");
  status << "{\"status\": " << json_string(r.status) << ", \"stage\": " << json_string(r.stage)
         << ", \"reason\": " << json_string(r.reason) << ", \"specialized\": " << (r.specialized ? "true" : "false") << "}\n";
  status.close();
  return status ? true : unwritable(out / "status.json", "the write failed");
}

// How many outputs of two runs are equal bit for bit, of how many compared.
std::pair<std::size_t, std::size_t> same_bits(const Ran& x, const Ran& y) {
  std::size_t same = 0, total = 0;
  for (std::size_t n = 0; n < std::min(x.sets.size(), y.sets.size()); ++n)
    for (std::size_t k = 0; k < std::min(x.sets[n].size(), y.sets[n].size()); ++k, ++total)
      same += x.sets[n][k].same_bits(y.sets[n][k]);
  return {same, total};
}

int run_suite(const SuiteArgs& a, const GlobalOptions& global) {
  if (!onnx_supported()) {
    std::fprintf(stderr, "rung onnx-suite: this rung was built without the ONNX importer (RUNG_ONNX=OFF)\n");
    return kExitDiagnostics;
  }
  std::error_code ec;
  if (!fs::is_directory(a.dir, ec)) {
    std::fprintf(stderr, "rung onnx-suite: %s is not a directory\n", a.dir.c_str());
    return kExitUsage;
  }
  std::vector<std::string> backends = {a.backend};
  if (!a.compare.empty()) {
    auto comma = a.compare.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == a.compare.size() ||
        a.compare.find(',', comma + 1) != std::string::npos) {
      std::fprintf(stderr, "rung onnx-suite: --compare takes two backends, A,B (got %s)\n", a.compare.c_str());
      return kExitUsage;
    }
    backends = {a.compare.substr(0, comma), a.compare.substr(comma + 1)};
  }
  for (const auto& b : backends) {  // an unknown backend is the caller's mistake, not 900 refusals
    auto have = rung::backends();
    if (std::none_of(have.begin(), have.end(), [&](const BackendInfo& i) { return i.name == b; })) {
      std::string names;
      for (const auto& i : have) names += (names.empty() ? "" : ", ") + i.name;
      std::fprintf(stderr, "rung onnx-suite: backend `%s` is not in this build (%s)\n", b.c_str(), names.c_str());
      return kExitUsage;
    }
  }
  std::optional<std::regex> filter;
  if (!a.filter.empty()) {
    try {
      filter.emplace(a.filter);
    } catch (const std::regex_error& e) {
      std::fprintf(stderr, "rung onnx-suite: --filter %s: %s\n", a.filter.c_str(), e.what());
      return kExitUsage;
    }
  }
  std::vector<fs::path> tests;
  for (const auto& e : fs::directory_iterator(a.dir, ec))
    if (fs::exists(e.path() / "model.onnx") && (!filter || std::regex_search(e.path().filename().string(), *filter)))
      tests.push_back(e.path());
  std::sort(tests.begin(), tests.end());
  if (tests.empty()) {
    std::fprintf(stderr, "rung onnx-suite: no test folders (with model.onnx) in %s\n", a.dir.c_str());
    return kExitUsage;
  }
  std::map<std::string, int> counts;
  std::size_t compared = 0, outputs = 0, identical = 0, differing_tests = 0;
  Diagnostics diags;
  for (const auto& test : tests) {
    const std::string name = test.filename().string();
    std::vector<Ran> runs;
    for (const auto& b : backends) runs.push_back(run_test(test, a, b));
    counts[runs[0].status]++;
    counts["specialized"] += runs[0].status == "ran" && runs[0].specialized;
    if (!a.out.empty() && !write_outputs(fs::path(a.out) / name, runs[0], diags)) return report(diags, global);
    if (runs.size() == 1) {
      if (runs[0].status != "ran") std::printf("%-13s %s  %s\n", runs[0].status.c_str(), name.c_str(), runs[0].reason.c_str());
      continue;
    }
    if (runs[0].status != runs[1].status) {
      std::printf("DIFFER        %s  %s on %s, %s on %s: %s\n", name.c_str(), runs[0].status.c_str(), backends[0].c_str(),
                  runs[1].status.c_str(), backends[1].c_str(), (runs[0].reason + runs[1].reason).c_str());
      ++differing_tests;
      continue;
    }
    if (runs[0].status != "ran") continue;
    auto [same, total] = same_bits(runs[0], runs[1]);
    ++compared, outputs += total, identical += same;
    if (same != total) {
      std::printf("DIFFER        %s  %zu of %zu outputs differ between %s and %s\n", name.c_str(), total - same, total,
                  backends[0].c_str(), backends[1].c_str());
      ++differing_tests;
    }
  }
  std::printf("onnx-suite: %zu tests on %s, tier %s: %d ran (%d specialized: inputs bound at import), %d refused, %d not attempted\n",
              tests.size(), backends[0].c_str(), a.tier.c_str(), counts["ran"], counts["specialized"], counts["refused"],
              counts["not attempted"]);
  if (backends.size() == 2)
    std::printf("onnx-suite: %s vs %s: %zu tests ran on both, %zu of %zu outputs identical bit for bit, %zu tests differ\n",
                backends[0].c_str(), backends[1].c_str(), compared, identical, outputs, differing_tests);
  return differing_tests ? kExitDiagnostics : kExitOk;
}

RUNG_COMMAND("onnx-suite", "Run ONNX test folders (model.onnx + .npy data sets) on a backend, or compare two",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<SuiteArgs>();
               sub.add_option("DIR", a->dir, "one folder per test: model.onnx, test_data_set_N/input_K.npy")->required();
               sub.add_option("--backend", a->backend, "the backend to run on (default cpu)");
               sub.add_option("--tier", a->tier, "the determinism tier (default debug)");
               sub.add_option("--out", a->out, "write OUTDIR/<test>/test_data_set_N/output_K.npy and status.json");
               sub.add_option("--compare", a->compare, "run on two backends, A,B, and name every test whose bits differ");
               sub.add_option("--filter", a->filter, "only the tests whose names match this regex");
               return [a, &global] { return run_suite(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
