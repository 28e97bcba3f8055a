// Shared by the files of the `_rung` extension: how a failed call becomes a rung.Error, and
// the registration functions each file defines. The extension sees only the public API
// (<rung/...>): the layering check refuses anything else under python/.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include <rung/diagnostics.h>
#include <rung/module.h>
#include <rung/tensor.h>

namespace rung::py_binding {

namespace py = pybind11;

// The diagnostics as Python objects: a list of rung.Diagnostic.
py::list diagnostic_list(const Diagnostics& d);
// Raises rung.Error carrying `d` (its first error gives code, message and location).
[[noreturn]] void raise(const Diagnostics& d);
[[noreturn]] void raise(std::string code, std::string text, std::vector<std::string> notes = {});
// Issues a Python warning (rung.RungWarning) for each warning in `d`.
void warn(const Diagnostics& d);

template <typename T>
T take(Result<T>&& r) {
  if (!r) raise(r.diagnostics());
  warn(r.diagnostics());
  return std::move(r).value();
}

// A rung tensor from a Python object (a rung.Tensor, anything with the buffer protocol, or
// with __dlpack__): borrowed when its memory is compact row-major in native byte order,
// else copied when `allow_copy` (and *copied set), else M0006. `what` names it in messages.
struct Imported {
  Tensor tensor;
  bool copied = false;
  std::string why;  // why a copy was made
};
Imported import_tensor(py::handle obj, const std::string& what, bool allow_copy);

// An entry's signature as a dict (name, params and results with name, type, dtype, shape, dims).
py::dict entry_dict(const EntryInfo& e);

void bind_tensor(py::module_& m);
void bind_program(py::module_& m);
void bind_graph(py::module_& m);

}  // namespace rung::py_binding
