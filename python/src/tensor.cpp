// rung.Tensor: a rung tensor seen from Python. Out: the read-only buffer protocol (numpy's
// np.asarray takes it without a copy) and DLPack capsules (np.from_dlpack, torch.from_dlpack).
// In: the buffer protocol or __dlpack__, never a conversion: compact row-major memory in
// native byte order is borrowed as it is, anything else is copied once or refused.
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <atomic>
#include <optional>
#include <vector>

#include <rung/dlpack.h>

#include "common.h"

namespace rung::py_binding {
namespace {

// ---- dtypes ----

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: case DType::u64: return 8;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f16: case DType::bf16: case DType::i16: case DType::u16: return 2;
    case DType::i8: case DType::u8: case DType::boolean: return 1;
    default: return 0;  // block-quantized: no element size
  }
}

// The buffer-protocol format of a dtype's values (nullptr: none, as for bf16) or of its
// bits (an unsigned integer of the same width).
const char* value_format(DType t) {
  switch (t) {
    case DType::f32: return "f";
    case DType::f64: return "d";
    case DType::f16: return "e";
    case DType::i8: return "b";
    case DType::i16: return "h";
    case DType::i32: return "i";
    case DType::i64: return "q";
    case DType::u8: return "B";
    case DType::u16: return "H";
    case DType::u32: return "I";
    case DType::u64: return "Q";
    case DType::boolean: return "?";
    default: return nullptr;
  }
}
const char* bits_format(std::size_t size) { return size == 8 ? "Q" : size == 4 ? "I" : size == 2 ? "H" : "B"; }

// A buffer's format and item size as a rung dtype; nullopt with `why` when there is none
// (a big-endian array is refused: byte order is part of the dtype, M0003).
std::optional<DType> dtype_of_format(const char* format, Py_ssize_t itemsize, std::string& why) {
  std::string f = format ? format : "B";
  std::size_t i = 0;
  bool big = false;
  if (i < f.size() && (f[i] == '@' || f[i] == '=' || f[i] == '<' || f[i] == '>' || f[i] == '!')) big = f[i] == '>' || f[i] == '!', ++i;
  std::string rest = f.substr(i);
  auto sized = [&](DType d1, DType d2, DType d4, DType d8) -> std::optional<DType> {
    switch (itemsize) {
      case 1: return d1;
      case 2: return d2;
      case 4: return d4;
      case 8: return d8;
      default: return std::nullopt;
    }
  };
  std::optional<DType> t;
  if (rest.size() == 1) {
    char c = rest[0];
    if (c == '?' && itemsize == 1) t = DType::boolean;
    else if (c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n') t = sized(DType::i8, DType::i16, DType::i32, DType::i64);
    else if (c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N') t = sized(DType::u8, DType::u16, DType::u32, DType::u64);
    else if (c == 'e' && itemsize == 2) t = DType::f16;
    else if (c == 'f' && itemsize == 4) t = DType::f32;
    else if (c == 'd' && itemsize == 8) t = DType::f64;
  }
  if (!t) {
    why = "its element format '" + f + "' is no rung dtype";
    return std::nullopt;
  }
  if (big && dtype_size(*t) > 1) {
    why = "it is big-endian ('" + f + "'); byte order is part of the dtype, so it is never converted implicitly: "
          "pass arr.astype(arr.dtype.newbyteorder('<'))";
    return std::nullopt;
  }
  return t;
}

std::optional<DType> dtype_of_dl(RungDLDataType d) {
  if (d.lanes != 1) return std::nullopt;
  switch (d.code) {
    case RUNG_DL_INT:
      return d.bits == 8 ? DType::i8 : d.bits == 16 ? DType::i16 : d.bits == 32 ? DType::i32 : d.bits == 64 ? std::optional(DType::i64) : std::nullopt;
    case RUNG_DL_UINT:
      return d.bits == 8 ? DType::u8 : d.bits == 16 ? DType::u16 : d.bits == 32 ? DType::u32 : d.bits == 64 ? std::optional(DType::u64) : std::nullopt;
    case RUNG_DL_FLOAT:
      return d.bits == 16 ? DType::f16 : d.bits == 32 ? DType::f32 : d.bits == 64 ? std::optional(DType::f64) : std::nullopt;
    case RUNG_DL_BFLOAT: return d.bits == 16 ? std::optional(DType::bf16) : std::nullopt;
    case RUNG_DL_BOOL: return d.bits == 8 ? std::optional(DType::boolean) : std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<RungDLDataType> dl_of_dtype(DType t) {
  auto bits = static_cast<std::uint8_t>(8 * dtype_size(t));
  switch (t) {
    case DType::f16: case DType::f32: case DType::f64: return RungDLDataType{RUNG_DL_FLOAT, bits, 1};
    case DType::bf16: return RungDLDataType{RUNG_DL_BFLOAT, 16, 1};
    case DType::i8: case DType::i16: case DType::i32: case DType::i64: return RungDLDataType{RUNG_DL_INT, bits, 1};
    case DType::u8: case DType::u16: case DType::u32: case DType::u64: return RungDLDataType{RUNG_DL_UINT, bits, 1};
    case DType::boolean: return RungDLDataType{RUNG_DL_BOOL, 8, 1};
    default: return std::nullopt;
  }
}

// ---- strides ----

bool row_major(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
  std::int64_t expect = 1;
  for (std::int64_t e : shape)
    if (e == 0) return true;  // no elements: any strides describe them
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

std::string copy_reason(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
  for (auto s : strides)
    if (s < 0) return "it has negative strides";
  if (shape.size() >= 2 && !strides.empty()) {  // column-major?
    std::int64_t expect = 1;
    bool fortran = true;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != 1 && strides[i] != expect) fortran = false;
      expect *= shape[i];
    }
    if (fortran) return "it is in Fortran (column-major) order";
  }
  return "it is not row-major contiguous";
}

std::string shape_text(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// Borrow when compact, else copy (or refuse). `release` gives the memory back; it runs once,
// whichever way this goes.
Imported borrow_or_copy(TensorView view, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                        const std::string& what, bool allow_copy, std::function<void()> release) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  auto give_back = [done, release]() {
    if (!done->exchange(true)) release();
  };
  view.shape = shape;
  if (row_major(shape, strides)) {
    view.strides = {};
    auto t = Tensor::borrow(view, give_back);
    if (!t) {
      give_back();
      raise(t.diagnostics());
    }
    return {std::move(t).value(), false, {}};
  }
  std::string why = copy_reason(shape, strides);
  if (!allow_copy) {
    give_back();
    raise("M0006", what + " cannot be borrowed: " + why + " (strides " + shape_text(strides) + " in elements, shape " +
                       shape_text(shape) + "), and copy=\"never\" refuses a copy",
          {"pass np.ascontiguousarray(...) or copy=\"if_needed\""});
  }
  view.strides = strides;
  auto t = Tensor::copy(view);
  give_back();
  if (!t) raise(t.diagnostics());
  return {std::move(t).value(), true, why};
}

Imported import_buffer(py::handle obj, const std::string& what, bool allow_copy) {
  auto view = std::make_shared<Py_buffer>();
  if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_RECORDS_RO) != 0) {
    py::error_already_set e;
    raise("M0003", what + " has no usable buffer: " + std::string(e.what()));
  }
  auto release = [view]() {
    py::gil_scoped_acquire gil;
    PyBuffer_Release(view.get());
  };
  std::string why;
  auto dtype = dtype_of_format(view->format, view->itemsize, why);
  if (!dtype) {
    release();
    raise("M0003", what + " cannot be passed: " + why);
  }
  std::vector<std::int64_t> shape(view->shape, view->shape + view->ndim), strides;
  for (int i = 0; i < view->ndim; ++i) {
    Py_ssize_t s = view->strides ? view->strides[i] : 0;
    if (view->strides && s % view->itemsize != 0) {
      release();
      raise("M0006", what + " has a stride of " + std::to_string(s) + " bytes, not a multiple of its " +
                         std::to_string(view->itemsize) + "-byte elements",
            {"pass np.ascontiguousarray(...)"});
    }
    strides.push_back(view->strides ? s / view->itemsize : 0);
  }
  if (!view->strides) {  // C-contiguous by the protocol's rule
    std::int64_t st = 1;
    strides.assign(shape.size(), 0);
    for (std::size_t i = shape.size(); i-- > 0;) strides[i] = st, st *= shape[i];
  }
  TensorView tv;
  tv.dtype = *dtype;
  tv.data = view->buf;
  return borrow_or_copy(tv, std::move(shape), std::move(strides), what, allow_copy, release);
}

Imported import_dlpack(py::handle obj, const std::string& what, bool allow_copy) {
  py::object capsule = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    raise("M0003", what + ": __dlpack__ gave no \"dltensor\" capsule (a used one, or another kind)");
  auto* m = static_cast<RungDLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ours now: the producer's destructor leaves it
  auto release = [m]() {
    if (!m->deleter) return;
    py::gil_scoped_acquire gil;  // numpy's deleter drops a Python reference
    m->deleter(m);
  };
  const RungDLTensor& t = m->dl_tensor;
  if (t.device.device_type != RUNG_DL_CPU) {
    release();
    raise("M0008", what + " is in the memory of DLPack device " + std::to_string(t.device.device_type) +
                       ", not the host's", {"move it to the CPU first (tensor.cpu())"});
  }
  auto dtype = dtype_of_dl(t.dtype);
  if (!dtype) {
    release();
    raise("M0003", what + " has DLPack dtype (code " + std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
                       " bits, " + std::to_string(t.dtype.lanes) + " lanes), which is no rung dtype");
  }
  std::vector<std::int64_t> shape(t.shape, t.shape + t.ndim), strides(t.ndim);
  std::int64_t st = 1;
  for (int i = t.ndim; i-- > 0;) {
    strides[i] = t.strides ? t.strides[i] : st;
    st *= shape[i];
  }
  TensorView tv;
  tv.dtype = *dtype;
  tv.data = static_cast<const char*>(t.data) + t.byte_offset;
  return borrow_or_copy(tv, std::move(shape), std::move(strides), what, allow_copy, release);
}

// ---- the buffer protocol, by hand: pybind11's def_buffer cannot refuse (bf16) without
// terminating, and always reports strides ----

struct BufferInternal {
  std::vector<Py_ssize_t> shape, strides;
  std::string format;
};

// Values (the dtype's own format) or bits (unsigned integers of the element width; the
// storage bytes for block-quantized tensors).
struct TensorBits {
  Tensor tensor;
};

int fill_buffer(PyObject* exporter, const Tensor& t, bool bits, Py_buffer* view, int flags) {
  view->obj = nullptr;
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "rung tensors are read-only (immutable values): copy it to write, np.array(t)");
    return -1;
  }
  std::size_t size = dtype_size(t.dtype());
  const char* fmt = bits ? bits_format(size) : value_format(t.dtype());
  if (!fmt) {
    std::string msg = "a " + std::string(dtype_name(t.dtype())) +
                      " tensor has no buffer-protocol format (numpy has no such dtype): use tensor.bits() for its bit "
                      "patterns" + (t.dtype() == DType::bf16 ? ", or torch.from_dlpack(tensor)" : "");
    PyErr_SetString(PyExc_BufferError, msg.c_str());
    return -1;
  }
  auto* in = new BufferInternal;
  in->format = fmt;
  Py_ssize_t itemsize = size == 0 ? 1 : static_cast<Py_ssize_t>(size);
  if (size == 0) {  // quantized bits: the storage bytes, 1-D
    in->shape = {static_cast<Py_ssize_t>(t.byte_size())};
  } else {
    for (auto e : t.shape()) in->shape.push_back(static_cast<Py_ssize_t>(e));
  }
  in->strides.assign(in->shape.size(), itemsize);
  for (std::size_t i = in->shape.size(); i-- > 1;) in->strides[i - 1] = in->strides[i] * in->shape[i];
  static char empty_storage = 0;  // an empty tensor may have no bytes; the protocol wants an address
  view->buf = t.data() ? const_cast<void*>(t.data()) : &empty_storage;
  view->len = static_cast<Py_ssize_t>(t.byte_size());
  view->itemsize = itemsize;
  view->readonly = 1;
  view->ndim = static_cast<int>(in->shape.size());
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? in->format.data() : nullptr;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? in->shape.data() : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? in->strides.data() : nullptr;
  view->suboffsets = nullptr;
  view->internal = in;
  view->obj = exporter;
  Py_INCREF(exporter);
  return 0;
}

template <bool Bits>
int get_buffer(PyObject* obj, Py_buffer* view, int flags) {
  try {
    if constexpr (Bits) return fill_buffer(obj, py::handle(obj).cast<const TensorBits&>().tensor, true, view, flags);
    else return fill_buffer(obj, py::handle(obj).cast<const Tensor&>(), false, view, flags);
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    view->obj = nullptr;
    return -1;
  }
}

void release_buffer(PyObject*, Py_buffer* view) { delete static_cast<BufferInternal*>(view->internal); }

PyBufferProcs tensor_buffer_procs{get_buffer<false>, release_buffer};
PyBufferProcs bits_buffer_procs{get_buffer<true>, release_buffer};

// ---- DLPack export ----

struct Export {
  Tensor tensor;
  std::vector<std::int64_t> shape, strides;
  RungDLManagedTensor legacy{};
  RungDLManagedTensorVersioned versioned{};
};

RungDLTensor describe(Export& e, DType dtype) {
  RungDLTensor t{};
  static char empty_storage = 0;
  t.data = e.tensor.data() ? const_cast<void*>(e.tensor.data()) : &empty_storage;
  t.device = {RUNG_DL_CPU, 0};
  t.ndim = static_cast<std::int32_t>(e.shape.size());
  t.dtype = *dl_of_dtype(dtype);
  t.shape = e.shape.data();
  t.strides = e.strides.data();
  t.byte_offset = 0;
  return t;
}

py::capsule to_dlpack(const Tensor& t, bool versioned) {
  if (!dl_of_dtype(t.dtype()))
    raise("M0009", "a " + std::string(dtype_name(t.dtype())) + " tensor has no DLPack form (block-quantized storage)",
          {"tensor.bits() gives its storage bytes"});
  auto* e = new Export{t, t.shape(), std::vector<std::int64_t>(t.rank(), 1)};
  for (std::size_t i = e->shape.size(); i-- > 1;) e->strides[i - 1] = e->strides[i] * e->shape[i];
  e->shape.reserve(1), e->strides.reserve(1);  // a 0-d tensor still gets addresses
  if (versioned) {
    e->versioned.version = {1, 0};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = [](RungDLManagedTensorVersioned* self) { delete static_cast<Export*>(self->manager_ctx); };
    e->versioned.flags = RUNG_DL_FLAG_READ_ONLY;
    e->versioned.dl_tensor = describe(*e, t.dtype());
    return py::capsule(&e->versioned, "dltensor_versioned", [](PyObject* cap) {
      if (PyCapsule_IsValid(cap, "dltensor_versioned")) {  // never consumed
        auto* m = static_cast<RungDLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
        if (m->deleter) m->deleter(m);
      }
    });
  }
  e->legacy.manager_ctx = e;
  e->legacy.deleter = [](RungDLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
  e->legacy.dl_tensor = describe(*e, t.dtype());
  return py::capsule(&e->legacy, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<RungDLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      if (m->deleter) m->deleter(m);
    }
  });
}

py::tuple shape_tuple(const Tensor& t) {
  py::tuple out(t.rank());
  for (std::size_t i = 0; i < t.rank(); ++i) out[i] = t.shape()[i];
  return out;
}

DType dtype_arg(const std::string& name) {
  auto t = dtype_from_name(name);
  if (!t) raise("M0003", "`" + name + "` is no rung dtype", {"f32, f16, bf16, f64, i64, i32, i16, i8, u64, u32, u16, u8, bool"});
  return *t;
}

}  // namespace

Imported import_tensor(py::handle obj, const std::string& what, bool allow_copy) {
  if (py::isinstance<Tensor>(obj)) return {obj.cast<Tensor>(), false, {}};
  if (PyObject_CheckBuffer(obj.ptr())) return import_buffer(obj, what, allow_copy);
  if (py::hasattr(obj, "__dlpack__")) return import_dlpack(obj, what, allow_copy);
  std::string type = py::str(py::type::handle_of(obj).attr("__name__"));
  raise("M0003", what + " is a `" + type + "`, neither an array (the buffer protocol) nor a DLPack tensor",
        {"pass a numpy array of the parameter's dtype: np.asarray(value, dtype=np.float32); a scalar as np.float32(3.0)"});
}

void bind_tensor(py::module_& m) {
  auto cls = py::class_<Tensor>(m, "Tensor", R"(An immutable rung tensor: read-only buffer protocol (np.asarray(t) does not copy)
and DLPack (np.from_dlpack(t), torch.from_dlpack(t)).)");
  reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_as_buffer = &tensor_buffer_procs;
  cls.def(py::init([](py::handle obj, std::optional<std::string> dtype, bool copy) {
            if (dtype) {  // bits reinterpreted: the way to make bf16 from numpy's uint16
              DType want = dtype_arg(*dtype);
              Imported in = import_tensor(obj, "the array", true);
              const Tensor& src = in.tensor;
              if (dtype_size(src.dtype()) != dtype_size(want) || dtype_size(want) == 0)
                raise("M0003", "cannot view " + std::string(dtype_name(src.dtype())) + " elements as " + *dtype +
                                   ": the element sizes differ");
              std::vector<std::uint8_t> bytes(static_cast<const std::uint8_t*>(src.data()),
                                              static_cast<const std::uint8_t*>(src.data()) + src.byte_size());
              return take(Tensor::from_bytes(want, src.shape(), std::move(bytes)));
            }
            Imported in = import_tensor(obj, "the array", true);
            if (!copy || !in.tensor.borrowed()) return in.tensor;
            TensorView v = in.tensor.view();
            return take(Tensor::copy(v));  // an owned value: later writes to the array do not show
          }),
          py::arg("obj"), py::arg("dtype") = py::none(), py::arg("copy") = true,
          "A tensor from an array (copied unless copy=False: then borrowed, and it must outlive nothing it may change). "
          "With dtype, the array's elements are reinterpreted as that dtype (same element size): "
          "rung.Tensor(u16_array, dtype=\"bf16\").");
  cls.def_property_readonly("dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); });
  cls.def_property_readonly("shape", shape_tuple);
  cls.def_property_readonly("ndim", [](const Tensor& t) { return t.rank(); });
  cls.def_property_readonly("size", [](const Tensor& t) { return t.numel(); });
  cls.def_property_readonly("nbytes", [](const Tensor& t) { return t.byte_size(); });
  cls.def_property_readonly("type", &Tensor::type, "\"f32[2, 3]\"");
  cls.def_property_readonly("hash", &Tensor::hash, "SHA3-256 of dtype, shape and bytes: what `rung run` prints");
  cls.def_property_readonly("borrowed", &Tensor::borrowed, "the bytes are someone else's (an input used in place)");
  cls.def_property_readonly("data_ptr", [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data()); },
                            "the address of the first byte (0 for no bytes)");
  cls.def("same_bits", &Tensor::same_bits);
  cls.def("numpy_repr", &Tensor::numpy_repr, "the values as NumPy's repr prints them");
  cls.def("__len__", [](const Tensor& t) {
    if (t.rank() == 0) throw py::type_error("len() of a 0-d tensor");
    return t.shape()[0];
  });
  cls.def("__repr__", [](const Tensor& t) {
    std::string s = "rung.Tensor(" + t.type() + (t.borrowed() ? ", borrowed" : "") + ")";
    if (t.numel() <= 64 && value_format(t.dtype())) s += "\n" + t.numpy_repr();
    return s;
  });
  cls.def("__dlpack__",
          [](const Tensor& t, py::object stream, py::object max_version, py::object dl_device, py::object copy) {
            (void)stream, (void)dl_device;
            if (!copy.is_none() && copy.cast<bool>()) raise("M0009", "__dlpack__(copy=True): rung exports its own memory only");
            bool versioned = false;
            if (!max_version.is_none()) versioned = max_version.cast<py::tuple>()[0].cast<int>() >= 1;
            return to_dlpack(t, versioned);
          },
          py::arg("stream") = py::none(), py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
          py::arg("copy") = py::none());
  cls.def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(RUNG_DL_CPU, 0); });
  cls.def("_bits", [](const Tensor& t) { return TensorBits{t}; });
  cls.def("save_npy", [](const Tensor& t, const std::string& path) { take(t.save_npy(path)); });
  cls.def_static("load_npy", [](const std::string& path) { return take(Tensor::load_npy(path)); });

  auto bits = py::class_<TensorBits>(m, "_TensorBits", "a tensor's bits as unsigned integers (the buffer protocol)");
  reinterpret_cast<PyTypeObject*>(bits.ptr())->tp_as_buffer = &bits_buffer_procs;

  m.def("_import", [](py::handle obj, bool allow_copy) {
    Imported in = import_tensor(obj, "the value", allow_copy);
    return py::make_tuple(in.tensor, in.copied, in.why);
  });
}

}  // namespace rung::py_binding
