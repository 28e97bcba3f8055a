// rung.load, Program and Session: thin conversions over rung::Module, Program and Session.
// The GIL is released while rung compiles, conforms and runs; callbacks (progress, print)
// take it back, and a Python exception raised in one (Ctrl-C included) cancels the run and
// is re-raised when the call returns.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <atomic>
#include <mutex>
#include <optional>

#include <rung/rung.hpp>

#include "common.h"

namespace rung::py_binding {
namespace {

py::dict param_dict(const Param& p) {
  py::dict d;
  d["name"] = p.name;
  d["type"] = p.type;
  d["dtype"] = std::string(dtype_name(p.dtype));
  py::list shape;
  for (auto e : p.shape) shape.append(e < 0 ? py::object(py::none()) : py::object(py::int_(e)));
  d["shape"] = py::tuple(shape);
  d["dims"] = py::tuple(py::cast(p.dims));
  return d;
}

}  // namespace

py::dict entry_dict(const EntryInfo& e) {
  py::dict d;
  d["name"] = e.name;
  d["exported"] = e.exported;
  py::list params, results;
  for (const auto& p : e.params) params.append(param_dict(p));
  for (const auto& r : e.results) results.append(param_dict(r));
  d["params"] = params;
  d["results"] = results;
  d["tier"] = e.tier;
  return d;
}

namespace {

Receipts receipts_arg(const std::string& s) {
  if (s == "require") return Receipts::require;
  if (s == "conform") return Receipts::conform;
  if (s == "ignore") return Receipts::ignore;
  raise("M0035", "receipts=\"" + s + "\" is not a receipts policy", {"require, conform or ignore"});
}

// The Python callables of one session, and what they raised.
struct Callbacks {
  py::object progress, print;
  std::optional<py::error_already_set> error;
  std::atomic<bool> cancel{false};

  ~Callbacks() {
    py::gil_scoped_acquire gil;
    progress = py::object();
    print = py::object();
    error.reset();
  }
  // Runs `f` with the GIL; a Python exception (or a pending signal) is kept and cancels.
  template <typename F>
  void call(F&& f) {
    py::gil_scoped_acquire gil;
    if (error) return;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      f();
    } catch (py::error_already_set& e) {
      error = std::move(e);
      cancel = true;
    }
  }
  void rethrow() {
    if (!error) return;
    py::error_already_set e = std::move(*error);
    error.reset();
    cancel = false;
    throw e;
  }
};

struct PySession {
  std::optional<Session> session;
  std::shared_ptr<Callbacks> callbacks;
  std::mutex busy;
  std::string backend;
};

py::dict stats_dict(const RunStats& s) {
  py::dict d, mem;
  mem["measured_peak"] = s.memory.measured_peak;
  mem["planned_peak"] = s.memory.planned_peak ? py::object(py::int_(*s.memory.planned_peak)) : py::object(py::none());
  mem["delta_percent"] = s.memory.delta_percent;
  mem["not_counted"] = s.memory.not_counted;
  mem["no_plan"] = s.memory.no_plan;
  d["memory"] = mem;
  py::list streams, placements;
  for (const auto& st : s.streams) {
    py::dict x;
    x["region"] = st.region, x["rows"] = st.rows, x["chunk"] = st.chunk, x["why"] = st.why;
    streams.append(x);
  }
  for (const auto& p : s.placements) {
    py::dict x;
    x["scope"] = p.scope, x["backend"] = p.backend, x["reason"] = p.reason, x["times"] = p.times;
    placements.append(x);
  }
  d["streams"] = streams;
  d["placements"] = placements;
  if (s.transfers) {
    py::dict x;
    x["to_device_bytes"] = s.transfers->to_device_bytes, x["uploads"] = s.transfers->uploads;
    x["from_device_bytes"] = s.transfers->from_device_bytes, x["downloads"] = s.transfers->downloads;
    d["transfers"] = x;
  } else {
    d["transfers"] = py::none();
  }
  d["generated_kernels"] = py::cast(s.generated_kernels);
  if (s.shadow) {
    py::dict x;
    x["summary"] = s.shadow->summary, x["regions_checked"] = s.shadow->regions_checked;
    x["regions_differing"] = s.shadow->regions_differing, x["findings_json"] = s.shadow->findings_json;
    d["shadow"] = x;
  } else {
    d["shadow"] = py::none();
  }
  d["inputs_copied"] = s.inputs_copied;
  d["bytes_copied"] = s.bytes_copied;
  d["inputs_borrowed"] = s.inputs_borrowed;
  return d;
}

Program load(std::optional<std::string> path, std::optional<std::string> name, std::optional<py::bytes> data,
             std::string kind_name, std::optional<std::string> tier, std::optional<std::string> tolerance,
             std::vector<std::string> dims, std::vector<std::pair<std::string, py::object>> bind) {
  LoadOptions options;
  options.dims = std::move(dims);
  for (auto& [input, value] : bind)  // with the GIL: the arrays are read here
    options.bind.emplace_back(input, import_tensor(value, "bind[\"" + input + "\"]", true).tensor);
  std::optional<Source> source;
  if (path) {
    source = Source::file(*path);
  } else {
    SourceKind kind = kind_name == "keg"        ? SourceKind::keg
                      : kind_name == "workflow" ? SourceKind::workflow
                      : kind_name == "onnx"     ? SourceKind::onnx
                                                : SourceKind::rung;
    std::string bytes = *data;  // a copy: the Source owns its content
    source = Source::bytes(name.value_or("<memory>"),
                           std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kind);
  }
  Result<Program> program = [&]() -> Result<Program> {
    py::gil_scoped_release nogil;
    auto module = Module::load(*source, options);
    if (!module) return module.diagnostics();
    auto p = Program::compile(*module, CompileOptions{tier, tolerance});
    if (!p) return p;
    Diagnostics w = module.diagnostics();
    w.append(p.diagnostics());
    return Result<Program>(std::move(p).value(), std::move(w));
  }();
  return take(std::move(program));
}

std::shared_ptr<PySession> open_session(const Program& p, const std::string& backend, const std::string& receipts,
                                        bool write_records, bool shadow, std::uint64_t offload_threshold,
                                        py::object progress, py::object print) {
  auto s = std::make_shared<PySession>();
  s->callbacks = std::make_shared<Callbacks>();
  s->callbacks->progress = progress;
  s->callbacks->print = print;
  s->backend = backend;
  SessionOptions o;
  o.backend = backend;
  o.receipts = receipts_arg(receipts);
  o.environment = Environment::from_process();
  o.write_records = write_records;
  o.shadow = shadow;
  o.offload_threshold = offload_threshold;
  std::weak_ptr<Callbacks> cb = s->callbacks;
  // Always installed, to notice Ctrl-C between reports.
  o.progress = [cb](const Progress& pr) {
    auto c = cb.lock();
    if (!c) return;
    c->call([&] {
      if (c->progress.is_none()) return;
      py::dict d;
      d["phase"] = pr.phase, d["done"] = pr.done, d["total"] = pr.total, d["item"] = pr.item;
      d["elapsed_s"] = pr.elapsed_s, d["finished"] = pr.finished;
      c->progress(d);
    });
  };
  o.print = [cb](std::string_view text) {
    auto c = cb.lock();
    if (!c) return;
    c->call([&] {
      if (!c->print.is_none()) c->print(py::str(text.data(), text.size()));
    });
  };
  Result<Session> session = [&] {
    py::gil_scoped_release nogil;
    return Session::open(p, o);
  }();
  s->callbacks->rethrow();
  s->session.emplace(take(std::move(session)));
  return s;
}

RunResult run(PySession& s, std::optional<std::string> entry, py::dict inputs, const std::string& copy,
             std::optional<std::uint64_t> stream_rows, std::optional<std::uint64_t> binding_limit) {
  std::unique_lock<std::mutex> lock(s.busy, std::try_to_lock);
  if (!lock.owns_lock()) raise("M0011", "this session is running a call in another thread", {"open one session per thread"});
  if (!s.session) raise("M0040", "the session is closed", {"open another: program.session(...)"});
  if (copy != "if_needed" && copy != "never")
    raise("M0035", "copy=\"" + copy + "\" is not a copy policy", {"if_needed (copy what cannot be borrowed, warning M0020) or never (M0006)"});
  const bool allow_copy = copy == "if_needed";
  RunOptions ro;
  ro.stream_rows = stream_rows;
  ro.binding_limit = binding_limit;
  ro.cancel = &s.callbacks->cancel;
  Inputs in;
  Diagnostics copies;  // M0020, one per copied input (Session::run counts them in stats)
  for (auto [key, value] : inputs) {
    std::string name = py::str(key);
    Imported t = import_tensor(value, "input `" + name + "`", allow_copy);
    if (t.copied)
      copies.append(Diagnostics::warning("M0020", "input `" + name + "` was copied (" + std::to_string(t.tensor.byte_size()) +
                                                      " bytes): " + t.why,
                                         {"pass a C-contiguous array in native byte order to have it borrowed"}));
    in.push_back({std::move(name), std::move(t.tensor), {}});
  }
  s.callbacks->cancel = false;
  Result<RunResult> r = [&] {
    py::gil_scoped_release nogil;
    return s.session->run(entry.value_or(""), in, ro);
  }();
  in.clear();  // borrowed inputs go back now, with the GIL held
  s.callbacks->rethrow();
  if (!r) raise(r.diagnostics());
  RunResult res = std::move(r).value();
  copies.append(res.warnings);
  res.warnings = std::move(copies);
  return res;  // converted when asked for (_RunResult): a run costs what rung spends, not a dict per field
}

}  // namespace

void bind_program(py::module_& m) {
  m.def("_load", &load, py::arg("path"), py::arg("name"), py::arg("data"), py::arg("kind"), py::arg("tier"),
        py::arg("tolerance"), py::arg("dims"), py::arg("bind"));
  m.def("backends", [] {
    py::list out;
    for (const auto& b : backends()) out.append(py::make_tuple(b.name, b.summary));
    return out;
  });

  py::class_<Program>(m, "Program", py::dynamic_attr(), "A compiled program: immutable, shareable by threads and sessions.")
      .def_property_readonly("module_name", &Program::module_name)
      .def_property_readonly("tier", &Program::tier)
      .def_property_readonly("tolerance", &Program::tolerance)
      .def_property_readonly("fingerprint", &Program::fingerprint, "graph and BlockIR together (what `rung run` prints)")
      .def_property_readonly("graph_fingerprint", &Program::graph_fingerprint)
      .def_property_readonly("blockir_hash", &Program::blockir_hash)
      .def("_entries", [](const Program& p) {
        py::list out;
        for (const auto& e : p.entries()) out.append(entry_dict(e));
        return out;
      })
      .def("_entry", [](const Program& p, std::optional<std::string> name) { return entry_dict(take(p.entry(name.value_or("")))); })
      .def("serialize", [](const Program& p) {
        auto bytes = take(p.serialize());
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }, "the whole program as .keg bytes, as `rung build` writes them")
      .def("_recompile", [](const Program& p, std::optional<std::string> tier, std::optional<std::string> tolerance) {
        Result<Program> r = [&] {
          py::gil_scoped_release nogil;
          return Program::compile(p.module(), CompileOptions{tier, tolerance});
        }();
        return take(std::move(r));
      }, "this program's module compiled again at another tier or class (C0016)")
      .def("_open", &open_session, py::arg("backend"), py::arg("receipts"), py::arg("write_records"), py::arg("shadow"),
           py::arg("offload_threshold"), py::arg("progress"), py::arg("print"));

  py::class_<RunResult>(m, "_RunResult")
      .def_property_readonly("outputs", [](const RunResult& r) {
        py::dict out;
        for (const auto& o : r.outputs) out[py::str(o.name)] = py::cast(o.tensor);
        return out;
      })
      .def_property_readonly("warnings", [](const RunResult& r) { return diagnostic_list(r.warnings); })
      .def_property_readonly("has_warnings", [](const RunResult& r) { return !r.warnings.empty(); })
      .def_property_readonly("stats", [](const RunResult& r) { return stats_dict(r.stats); })
      .def_property_readonly("record", [](const RunResult& r) {
        py::dict record;
        record["id"] = r.record.id, record["json"] = r.record.json, record["text"] = r.record.text;
        record["replayable"] = r.record.replayable, record["convergence_class"] = r.record.convergence_class;
        return record;
      })
      .def_readonly("entry", &RunResult::entry)
      .def_readonly("tier", &RunResult::tier)
      .def_readonly("backend", &RunResult::backend)
      .def_readonly("fingerprint", &RunResult::fingerprint)
      .def_readonly("graph_fingerprint", &RunResult::graph_fingerprint)
      .def_readonly("blockir", &RunResult::blockir)
      .def_readonly("reproducibility", &RunResult::reproducibility);

  py::class_<PySession, std::shared_ptr<PySession>>(m, "_Session")
      .def("run", &run, py::arg("entry"), py::arg("inputs"), py::arg("copy"), py::arg("stream_rows"), py::arg("binding_limit"))
      .def_property_readonly("closed", [](const PySession& s) { return !s.session; })
      .def_property_readonly("backend", [](const PySession& s) { return s.backend; })
      .def_property_readonly("exact_capable", [](const PySession& s) {
        if (!s.session) raise("M0040", "the session is closed");
        return s.session->exact_capable();
      })
      .def("close", [](PySession& s) {
        std::unique_lock<std::mutex> lock(s.busy, std::try_to_lock);
        if (!lock.owns_lock()) raise("M0011", "this session is running a call in another thread: it cannot close now");
        if (!s.session) return;
        py::gil_scoped_release nogil;  // a session may write its record and free device memory
        s.session.reset();
      });
}

}  // namespace rung::py_binding
