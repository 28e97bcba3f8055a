// The rung engine as an ES module (js/CMakeLists.txt builds rung_engine.mjs + .wasm): the few
// extern "C" entries that js/index.mjs calls, on the public API only. Requests and replies are
// JSON strings; tensors cross as byte ranges in the module's memory (the caller copies inputs
// in before `rung_engine_run` and outputs out before releasing the result). Nothing throws out
// of here: every failure is a reply {"ok": false, "diagnostics": [...]} in the CLI's JSON form
// (`rung check --error-format json`). Single-threaded: a reply stays valid until the next call.
#include <emscripten/emscripten.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include <rung/rung.hpp>  // Module, Program, Session, check, show, plan_memory

using nlohmann::json;

// Run events go to the page's handler; it answers 1 to ask for cancellation (AbortSignal
// aborted, or the Worker's shared cancel flag set), which the run honours before its next
// statement (M0012).
EM_JS(int, rung_engine_event, (const char* event_json), {
  var f = Module['onRungEvent'];
  return f ? (f(UTF8ToString(event_json)) ? 1 : 0) : 0;
});

namespace {

using namespace rung;

// What compile made: the source (show and plan take one), the program, its default entry and dims.
struct Compiled {
  Source source;
  Program program;
  std::string entry;
  std::vector<std::string> dims;
};
// A run's outputs, alive until the caller has copied their bytes and releases the handle.
struct Outputs {
  std::vector<Tensor> tensors;
};

std::map<int, std::shared_ptr<Compiled>> programs;
std::map<int, std::shared_ptr<Outputs>> results;
int next_handle = 1;
std::string reply;  // the last reply: valid until the next call

// The engine's own process view: a store in the module's in-memory file system (receipts
// made in this engine live as long as it does); no environment variables, no data folders.
Environment engine_environment() {
  Environment e;
  e.home = "/rung-home";
  return e;
}

const char* answer(const json& j) {
  reply = j.dump(-1, ' ', false, json::error_handler_t::replace);  // a print may hold any bytes
  return reply.c_str();
}
// Diagnostics as the CLI prints them for tools (`--error-format json`); none: an empty array.
json diagnostics_json(const Diagnostics& d) { return d.empty() ? json::array() : json::parse(d.json()); }
const char* failure(const Diagnostics& d) { return answer({{"ok", false}, {"diagnostics", diagnostics_json(d)}}); }
// A request the engine cannot read (its form, not the program's content): M0040.
const char* bad_request(const std::string& why) { return failure(Diagnostics::error("M0040", "engine request: " + why)); }

// The last line of defence, as the CLI's: what escapes is a bug in rung, reported, not thrown.
template <typename F>
const char* guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return failure(Diagnostics::error("C0004", "out of memory"));
  } catch (const std::exception& e) {
    return failure(Diagnostics::error("Z0001", std::string("internal error (a bug in rung, not in your input): ") + e.what()));
  }
}

std::optional<SourceKind> kind_named(const std::string& k) {
  if (k == "rung") return SourceKind::rung;
  if (k == "workflow") return SourceKind::workflow;
  return std::nullopt;
}

// {"name", "text", "kind": "rung" | "workflow"} -> a Source in memory.
std::optional<Source> source_of(const json& s, std::string& why) {
  if (!s.is_object() || !s.contains("text") || !s["text"].is_string()) {
    why = "a source needs a string `text`";
    return std::nullopt;
  }
  auto kind = kind_named(s.value("kind", std::string("rung")));
  if (!kind) {
    why = "a source's `kind` is `rung` or `workflow`";
    return std::nullopt;
  }
  std::string name = s.value("name", std::string(*kind == SourceKind::rung ? "main.rung" : "workflow.json"));
  return Source::text(name, s["text"].get<std::string>(), *kind);
}

std::optional<json> parse_request(const char* text, std::string& why) {
  json j = json::parse(text ? text : "", nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    why = "not a JSON object";
    return std::nullopt;
  }
  return j;
}

std::vector<std::string> strings_of(const json& j, const char* key) {
  std::vector<std::string> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& v : j[key])
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

json params_json(const std::vector<Param>& ps) {
  json a = json::array();
  for (const auto& p : ps) a.push_back({{"name", p.name}, {"type", p.type}, {"dtype", std::string(dtype_name(p.dtype))}, {"shape", p.shape}});
  return a;
}
json entries_json(const std::vector<EntryInfo>& es) {
  json a = json::array();
  for (const auto& e : es)
    a.push_back({{"name", e.name}, {"exported", e.exported}, {"tier", e.tier}, {"params", params_json(e.params)}, {"results", params_json(e.results)}});
  return a;
}

std::shared_ptr<Compiled> program_of(int handle) {
  auto it = programs.find(handle);
  return it == programs.end() ? nullptr : it->second;
}
const char* no_program(int handle) {
  return failure(Diagnostics::error("M0041", "no program with handle " + std::to_string(handle) + " (never compiled, or released)"));
}

// The start of every request on a compiled program: the request's JSON (M0040), then the
// program (M0041); `fn(request, program)` answers.
template <class Fn>
const char* on_program(int handle, const char* request, Fn&& fn) {
  return guarded([&] {
    std::string why;
    auto req = parse_request(request, why);
    if (!req) return bad_request(why);
    auto p = program_of(handle);
    if (!p) return no_program(handle);
    return fn(*req, *p);
  });
}

json progress_json(const Progress& p) {
  return {{"type", "progress"}, {"phase", p.phase}, {"done", p.done}, {"total", p.total},
          {"item", p.item}, {"elapsed_s", p.elapsed_s}, {"finished", p.finished}};
}

// {"name", "dtype", "shape", "ptr", "bytes"}: bytes the caller put in this module's memory.
std::optional<Input> input_of(const json& in, Diagnostics& errors) {
  std::string name = in.value("name", std::string());
  auto dtype = dtype_from_name(in.value("dtype", std::string()));
  if (name.empty() || !dtype || !in.contains("shape") || !in["shape"].is_array() || !in.contains("ptr") || !in["ptr"].is_number_unsigned()) {
    errors.append(Diagnostics::error("M0040", "engine request: input `" + name + "` needs a name, a known dtype, a shape and a ptr"));
    return std::nullopt;
  }
  std::vector<std::int64_t> shape;
  for (const auto& e : in["shape"]) shape.push_back(e.is_number_integer() ? e.get<std::int64_t>() : -1);
  TensorView view{*dtype, shape, {}, reinterpret_cast<const void*>(in["ptr"].get<std::uintptr_t>()), {}};
  auto t = Tensor::copy(view);  // M0007 for a negative extent
  if (!t) {
    errors.append(t.diagnostics());
    return std::nullopt;
  }
  if (in.contains("bytes") && in["bytes"].is_number_unsigned() && in["bytes"].get<std::uint64_t>() != t->byte_size()) {
    errors.append(Diagnostics::error("M0007", "input `" + name + "`: " + std::to_string(in["bytes"].get<std::uint64_t>()) + " bytes given, " +
                                                  t->type() + " needs " + std::to_string(t->byte_size())));
    return std::nullopt;
  }
  return Input{name, std::move(*t), {}};
}

}  // namespace

extern "C" {

// {"sources": [{"name", "text", "kind"}]} -> {"ok": true, "diagnostics": [...], "entries": [...]}:
// the diagnostics of `rung check`, and the entries (ports) of each source that loads.
EMSCRIPTEN_KEEPALIVE const char* rung_engine_check(const char* request) {
  return guarded([&] {
    std::string why;
    auto req = parse_request(request, why);
    if (!req) return bad_request(why);
    std::vector<Source> sources;
    for (const auto& s : req->value("sources", json::array())) {
      auto src = source_of(s, why);
      if (!src) return bad_request(why);
      sources.push_back(std::move(*src));
    }
    Diagnostics found = rung::check(sources);
    json ports = json::object();
    if (!found.has_errors())
      for (const auto& s : sources)
        if (auto m = Module::load(s)) ports[s.name()] = entries_json(m->functions());
    return answer({{"ok", true}, {"diagnostics", diagnostics_json(found)}, {"ports", ports}});
  });
}

// {"source": {...}, "entry", "tier", "tolerance", "dims": ["N=8"]} -> {"ok", "program": handle, ...}.
EMSCRIPTEN_KEEPALIVE const char* rung_engine_compile(const char* request) {
  return guarded([&] {
    std::string why;
    auto req = parse_request(request, why);
    if (!req) return bad_request(why);
    auto src = source_of(req->value("source", json()), why);
    if (!src) return bad_request(why);
    Diagnostics all;
    auto module = Module::load(*src);
    all.append(module.diagnostics());
    if (!module) return failure(all);
    CompileOptions co;
    if (req->contains("tier") && (*req)["tier"].is_string()) co.tier = (*req)["tier"].get<std::string>();
    if (req->contains("tolerance") && (*req)["tolerance"].is_string()) co.tolerance = (*req)["tolerance"].get<std::string>();
    auto program = Program::compile(*module, co);
    all.append(program.diagnostics());
    if (!program) return failure(all);
    auto entry = program->entry(req->value("entry", std::string()));
    if (!entry) {
      all.append(entry.diagnostics());
      return failure(all);
    }
    int handle = next_handle++;
    programs[handle] = std::make_shared<Compiled>(Compiled{*src, *program, entry->name, strings_of(*req, "dims")});
    return answer({{"ok", true}, {"program", handle}, {"entry", entry->name}, {"module", program->module_name()},
                   {"tier", program->tier()}, {"tolerance", program->tolerance()}, {"fingerprint", program->fingerprint()},
                   {"entries", entries_json(program->entries())}, {"diagnostics", diagnostics_json(all)}});
  });
}

// {"rung": "block" | "graph" | "kernel" | "plan", "backend"} -> {"ok", "text"}: `rung show`'s text.
EMSCRIPTEN_KEEPALIVE const char* rung_engine_show(int handle, const char* request) {
  return on_program(handle, request, [&](const json& req, Compiled& p) {
    ShowOptions o;
    o.ir = req.value("rung", std::string("block"));
    o.backend = req.value("backend", std::string());
    auto text = rung::show(p.source, o);
    if (!text) return failure(text.diagnostics());
    return answer({{"ok", true}, {"text", *text}, {"diagnostics", diagnostics_json(text.diagnostics())}});
  });
}

// {"device", "budget", "entry", "dims", "stream", "binding_limit", "batch"} -> {"ok", "plan"}:
// the plan is `rung plan --json`'s document.
EMSCRIPTEN_KEEPALIVE const char* rung_engine_plan(int handle, const char* request) {
  return on_program(handle, request, [&](const json& req, Compiled& p) {
    MemoryPlanOptions o;
    o.environment = engine_environment();
    o.device = req.value("device", std::string("cpu"));
    o.entry = req.value("entry", p.entry);
    o.budget = req.value("budget", std::string());
    o.binding_limit = req.value("binding_limit", std::string());
    o.stream = req.value("stream", std::string());
    o.batch = req.value("batch", std::uint64_t{0});
    o.dims = p.dims;
    for (auto& d : strings_of(req, "dims")) o.dims.push_back(d);
    auto plan = plan_memory(p.source, o);
    if (!plan) return failure(plan.diagnostics());
    return answer({{"ok", true}, {"plan", json::parse(plan->json)}, {"diagnostics", diagnostics_json(plan.diagnostics())}});
  });
}

// {"entry", "backend", "receipts", "inputs": [{"name", "dtype", "shape", "ptr", "bytes"}]} ->
// {"ok", "result": handle, "outputs": [{"name", "dtype", "shape", "sha3_256", "ptr", "bytes"}], ...}.
// Progress and print events go to Module.onRungEvent while it runs.
EMSCRIPTEN_KEEPALIVE const char* rung_engine_run(int handle, const char* request) {
  return on_program(handle, request, [&](const json& req, Compiled& p) {
    std::string receipts = req.value("receipts", std::string("conform"));
    if (receipts != "conform" && receipts != "require" && receipts != "ignore") return bad_request("receipts is conform, require or ignore");

    Diagnostics all;
    Inputs inputs;
    for (const auto& in : req.value("inputs", json::array()))
      if (auto i = input_of(in, all)) inputs.push_back(std::move(*i));
    if (all.has_errors()) return failure(all);

    std::atomic<bool> cancel{false};
    auto emit = [&cancel](const json& event) {
      if (rung_engine_event(event.dump(-1, ' ', false, json::error_handler_t::replace).c_str())) cancel.store(true);
    };
    SessionOptions so;
    so.backend = req.value("backend", std::string("cpu"));
    so.receipts = receipts == "require" ? Receipts::require : receipts == "ignore" ? Receipts::ignore : Receipts::conform;
    so.environment = engine_environment();
    so.write_records = true;  // into the in-memory store; the reply carries the record's JSON
    so.progress = [&emit](const Progress& pr) { emit(progress_json(pr)); };
    so.progress_interval_s = req.value("progressInterval", 1.0);
    if (!(so.progress_interval_s >= 0)) return bad_request("progressInterval is a number of seconds >= 0");
    so.print = [&emit](std::string_view text) { emit({{"type", "print"}, {"text", std::string(text)}}); };
    auto session = Session::open(p.program, so);
    all.append(session.diagnostics());
    if (!session) return failure(all);

    RunOptions ro;
    ro.cancel = &cancel;
    emit({{"type", "start"}, {"entry", req.value("entry", p.entry)}, {"backend", so.backend}});
    auto result = session->run(req.value("entry", p.entry), inputs, ro);
    all.append(result.diagnostics());
    if (!result) return failure(all);

    auto kept = std::make_shared<Outputs>();
    json outs = json::array();
    for (const auto& o : result->outputs) {
      outs.push_back({{"name", o.name}, {"type", o.tensor.type()}, {"dtype", std::string(dtype_name(o.tensor.dtype()))},
                      {"shape", o.tensor.shape()}, {"sha3_256", o.tensor.hash()},
                      {"ptr", reinterpret_cast<std::uintptr_t>(o.tensor.data())}, {"bytes", o.tensor.byte_size()}});
      kept->tensors.push_back(o.tensor);
    }
    int id = next_handle++;
    results[id] = kept;
    json j{{"ok", true}, {"result", id}, {"outputs", outs}, {"entry", result->entry}, {"tier", result->tier},
           {"backend", result->backend}, {"fingerprint", result->fingerprint}, {"graph_fingerprint", result->graph_fingerprint},
           {"blockir", result->blockir}, {"reproducibility", result->reproducibility},
           {"record", result->record.json.empty() ? json() : json::parse(result->record.json)}, {"diagnostics", diagnostics_json(all)}};
    return answer(j);
  });
}

// A program or a run result no longer needed: 1 when the handle was live.
EMSCRIPTEN_KEEPALIVE int rung_engine_release(int handle) { return static_cast<int>(programs.erase(handle) + results.erase(handle)); }

}  // extern "C"
