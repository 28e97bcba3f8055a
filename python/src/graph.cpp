// The graph builder (rung::graph, include/rung/graph.h) for rung.ops and rung.graph: the op
// catalog, values, functions, value_and_grad and one op on concrete arrays.
#include <pybind11/stl.h>

#include <rung/graph.h>
#include <rung/program.h>

#include "common.h"

namespace rung::py_binding {
namespace {

struct PyValue {
  graph::Builder builder;
  graph::Value value;
};

py::object attr_to_py(const graph::Attr& a) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, DType>) return py::str(std::string(dtype_name(v)));
        else return py::cast(v);
      },
      a);
}

// A Python value as an attribute: the kinds are checked against the op's declaration in
// C++ (graph.h); here only Python's own types are told apart (bool before int: a bool is an
// int in Python). A `seed` takes 64 bits, so 2^63..2^64-1 become their two's complement.
graph::Attr attr_from_py(const std::string& name, py::handle v) {
  auto integer = [&](py::handle x) -> std::int64_t {
    try {
      return x.cast<std::int64_t>();
    } catch (const py::cast_error&) {
    }
    if (name == "seed") {
      try {
        return static_cast<std::int64_t>(x.cast<std::uint64_t>());
      } catch (const py::cast_error&) {
      }
    }
    raise("N0011", "attribute `" + name + "`: " + std::string(py::repr(x)) + " does not fit in 64 bits",
          {"integers here hold -9223372036854775808 to 9223372036854775807 (a seed 0 to 18446744073709551615); they are never wrapped"});
  };
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::int_>(v)) return integer(v);
  if (py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
    bool any_float = false, any_str = false, any_other = false;
    for (auto x : seq) {
      if (py::isinstance<py::bool_>(x)) any_other = true;
      else if (py::isinstance<py::float_>(x)) any_float = true;
      else if (py::isinstance<py::str>(x)) any_str = true;
      else if (!py::isinstance<py::int_>(x)) any_other = true;
    }
    if (any_other || (any_float && any_str))
      raise("N0011", "attribute `" + name + "`: " + std::string(py::repr(v)) + " is not a list of ints, of floats or of dims");
    if (any_str) {
      graph::Dims dims;
      for (auto x : seq) dims.push_back(py::isinstance<py::str>(x) ? x.cast<std::string>() : std::to_string(integer(x)));
      return dims;
    }
    if (any_float) {
      std::vector<double> out;
      for (auto x : seq) out.push_back(x.cast<double>());
      return out;
    }
    std::vector<std::int64_t> out;
    for (auto x : seq) out.push_back(integer(x));
    return out;
  }
  std::string type = py::str(py::type::handle_of(v).attr("__name__"));
  raise("N0011", "attribute `" + name + "` is a `" + type + "`, which is no attribute kind",
        {"attributes are bool, int, float, str, a dtype name, or lists of ints, floats or dims"});
}

graph::Attrs attrs_from_py(py::dict d) {
  graph::Attrs out;
  for (auto [k, v] : d) {
    std::string name = py::str(k);
    out.emplace(name, attr_from_py(name, v));
  }
  return out;
}

py::dict op_dict(const graph::OpInfo& op) {
  py::dict d;
  d["name"] = op.name, d["family"] = op.family, d["summary"] = op.summary, d["signature"] = op.signature;
  py::list operands, attrs;
  for (const auto& o : op.operands) {
    py::dict x;
    x["name"] = o.name, x["type"] = o.type;
    x["arity"] = o.arity == graph::Arity::one ? "one" : o.arity == graph::Arity::optional ? "optional" : "variadic";
    operands.append(x);
  }
  for (const auto& a : op.attrs) {
    py::dict x;
    x["name"] = a.name, x["kind"] = a.kind_name, x["required"] = a.required;
    x["has_default"] = a.default_value.has_value();
    x["default"] = a.default_value ? attr_to_py(*a.default_value) : py::object(py::none());
    x["choices"] = py::cast(a.choices), x["doc"] = a.doc, x["text"] = a.text;
    attrs.append(x);
  }
  d["operands"] = operands, d["attrs"] = attrs, d["results"] = py::cast(op.results);
  py::dict tol;
  tol["debug"] = op.tolerance_debug, tol["prod"] = op.tolerance_prod, tol["fast"] = op.tolerance_fast;
  d["tolerance"] = tol;
  return d;
}

std::vector<graph::Value> values_of(const graph::Builder& b, py::sequence seq, const std::string& what) {
  std::vector<graph::Value> out;
  for (auto x : seq) {
    if (!py::isinstance<PyValue>(x)) raise("M0031", what + " must be graph values");
    const PyValue& v = x.cast<const PyValue&>();
    if (v.builder.id() != b.id()) raise("M0031", what + ": a value of another graph", {"values of two graphs cannot be combined"});
    out.push_back(v.value);
  }
  return out;
}

}  // namespace

void bind_graph(py::module_& m) {
  m.def("_op_catalog", [] {
    py::list out;
    for (const auto& op : graph::ops()) out.append(op_dict(op));
    return out;
  });
  m.def("_evaluate", [](const std::string& op, py::sequence operands, py::dict attrs) {
    std::vector<Tensor> in;
    std::size_t i = 0;
    for (auto x : operands) in.push_back(import_tensor(x, "operand " + std::to_string(i++) + " of `" + op + "`", true).tensor);
    graph::Attrs a = attrs_from_py(attrs);
    Result<std::vector<Tensor>> r = [&] {
      py::gil_scoped_release nogil;
      return graph::evaluate(op, in, a);
    }();
    return take(std::move(r));
  });

  py::class_<graph::Builder>(m, "_Builder")
      .def(py::init<>())
      .def_property_readonly("id", &graph::Builder::id)
      .def("input", [](graph::Builder& b, std::string name, const std::string& type) {
        return PyValue{b, take(b.input(std::move(name), type))};
      })
      .def("constant", [](graph::Builder& b, py::handle obj) {
        Tensor t = import_tensor(obj, "the constant", true).tensor;
        return PyValue{b, take(b.constant(t))};
      })
      .def("apply", [](graph::Builder& b, const std::string& op, py::sequence operands, py::dict attrs) {
        std::vector<graph::Value> in = values_of(b, operands, "the operands of `" + op + "`");
        graph::Attrs a = attrs_from_py(attrs);
        std::vector<graph::Value> out = take(b.apply(op, in, a));
        py::list result;
        for (const auto& v : out) result.append(PyValue{b, v});
        return result;
      })
      .def("function", [](graph::Builder& b, std::string name, py::sequence params, py::sequence results) {
        std::vector<graph::Value> ps = values_of(b, params, "the parameters");
        std::vector<std::pair<std::string, graph::Value>> rs;
        for (auto item : results) {
          auto pair = item.cast<py::tuple>();
          auto v = values_of(b, py::make_tuple(pair[1]), "the results");
          rs.emplace_back(pair[0].cast<std::string>(), v.at(0));
        }
        return take(b.function(std::move(name), ps, rs));
      });

  py::class_<PyValue>(m, "_Value")
      .def_property_readonly("builder", [](const PyValue& v) { return v.builder; })
      .def_property_readonly("_info", [](const PyValue& v) {
        graph::ValueInfo info = take(v.builder.info(v.value));
        py::dict d;
        d["type"] = info.type, d["dtype"] = std::string(dtype_name(info.dtype)), d["op"] = info.op, d["name"] = info.input_name;
        py::list shape;
        for (auto x : info.shape) shape.append(x < 0 ? py::object(py::none()) : py::object(py::int_(x)));
        d["shape"] = py::tuple(shape), d["dims"] = py::tuple(py::cast(info.dims));
        return d;
      })
      .def("_key", [](const PyValue& v) { return py::make_tuple(v.value.builder, v.value.node, v.value.output); });

  py::class_<graph::Function>(m, "_Function")
      .def_property_readonly("name", &graph::Function::name)
      .def_property_readonly("fingerprint", &graph::Function::fingerprint, "the GraphIR's (its .keg header's)")
      .def("_entry", [](const graph::Function& f) { return entry_dict(f.entry()); })
      .def("serialize", [](const graph::Function& f) {
        auto bytes = take(f.serialize());
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      })
      .def("save", [](const graph::Function& f, const std::string& path) { take(f.save(path)); })
      .def("_compile", [](const graph::Function& f, std::optional<std::string> tier, std::optional<std::string> tolerance) {
        Result<Program> r = [&]() -> Result<Program> {
          py::gil_scoped_release nogil;
          auto module = f.module();
          if (!module) return module.diagnostics();
          return Program::compile(*module, CompileOptions{tier, tolerance});
        }();
        return take(std::move(r));
      });

  m.def("_value_and_grad_function", [](const graph::Function& f, std::vector<std::string> wrt) {
    return take(graph::value_and_grad(f, wrt));
  });
  m.def("_value_and_grad_program", [](const Program& p, std::optional<std::string> entry, std::vector<std::string> wrt) {
    Result<Program> r = [&] {
      py::gil_scoped_release nogil;
      return graph::value_and_grad(p, entry.value_or(""), wrt);
    }();
    return take(std::move(r));
  });
}

}  // namespace rung::py_binding
