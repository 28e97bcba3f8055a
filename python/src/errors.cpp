// rung.Error from the API's diagnostics. The exception class itself is Python
// (rung/_errors.py), so it pickles, prints and subclasses like any other.
#include <pybind11/stl.h>

#include "common.h"

namespace rung::py_binding {
namespace {

py::object errors_module() { return py::module_::import("rung._errors"); }

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

}  // namespace

py::list diagnostic_list(const Diagnostics& d) {
  if (d.empty()) return py::list();  // the common case, on every run
  py::object mod = errors_module();
  py::object diagnostic = mod.attr("Diagnostic"), location = mod.attr("Location");
  py::list out;
  for (const Message& msg : d.messages()) {
    py::object loc = py::none();
    if (msg.location)
      loc = location(msg.location->file, msg.location->line, msg.location->column, msg.location->end_line,
                     msg.location->end_column);
    out.append(diagnostic(msg.code, severity_name(msg.severity), msg.text, loc, py::cast(msg.notes)));
  }
  return out;
}

void raise(const Diagnostics& d) {
  py::object error = errors_module().attr("Error")(diagnostic_list(d), d.text(false));
  PyErr_SetObject(error.get_type().ptr(), error.ptr());
  throw py::error_already_set();
}

void raise(std::string code, std::string text, std::vector<std::string> notes) {
  raise(Diagnostics::error(std::move(code), std::move(text), std::move(notes)));
}

void warn(const Diagnostics& d) {
  if (d.empty()) return;
  py::object mod = errors_module();
  py::object emit = mod.attr("_warn");
  for (const py::handle diag : diagnostic_list(d)) emit(diag);
}

}  // namespace rung::py_binding
