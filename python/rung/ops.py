"""Every op of rung's registry, generated when the module is imported: there is no
hand-kept list. Each function takes the op's operands positionally (a variadic operand
takes the rest, or one list) and its attributes by keyword, with the registry's defaults
(``help(rung.ops.softmax)`` shows the signature, attributes and tolerance classes).

On graph values (rung.graph) an op builds a node, typed at once: a shape error raises on
the line that applied it. On concrete arrays it runs rung's reference kernel and returns
numpy arrays. Attribute kinds are strict (``axis=1.0`` is refused). A Python number among
array or value operands is a literal taking the dtype its operand slot is bound to, as in
the language (an int for a float slot is fine, a float for an int slot is refused).
Op names that are Python keywords get a trailing underscore (``rung.ops.and_``).
"""

import inspect
import keyword
from typing import NamedTuple, Optional, Tuple

from . import _rung
from . import _errors
from ._errors import Error
from ._program import Tensor, _as_numpy


class Operand(NamedTuple):
    name: str
    type: str   # a type variable ("T") or a dtype ("i64")
    arity: str  # "one", "optional", "variadic"


class Attribute(NamedTuple):
    name: str
    kind: str   # "int", "ints", "float", "floats", "bool", "string", "dtype", "shape"
    required: bool
    default: object  # None when it has none (see has_default)
    has_default: bool
    choices: Tuple[str, ...]
    doc: str
    text: str   # "axis: int = -1"


class OpInfo(NamedTuple):
    name: str
    family: str
    summary: str
    signature: str
    operands: Tuple[Operand, ...]
    results: Tuple[str, ...]
    attrs: Tuple[Attribute, ...]
    tolerance: dict  # the class promised per tier: {"debug": "exact", "prod": ..., "fast": ...}


def _info(d) -> OpInfo:
    return OpInfo(d["name"], d["family"], d["summary"], d["signature"],
                  tuple(Operand(**o) for o in d["operands"]), tuple(d["results"]),
                  tuple(Attribute(**{**a, "choices": tuple(a["choices"])}) for a in d["attrs"]), dict(d["tolerance"]))


_CATALOG = {d["name"]: _info(d) for d in _rung._op_catalog()}


def catalog():
    """Every op of the registry (OpInfo), sorted by name."""
    return [_CATALOG[k] for k in sorted(_CATALOG)]


def info(name: str) -> OpInfo:
    return _CATALOG[name]


_DTYPE_NAMES = {"float32": "f32", "float16": "f16", "float64": "f64", "int64": "i64", "int32": "i32",
                "int16": "i16", "int8": "i8", "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
                "bool": "bool"}


def dtype_name(dtype) -> str:
    """The rung name of a numpy dtype (or anything np.dtype takes): np.float32 -> "f32"."""
    import numpy as np
    d = np.dtype(dtype)
    if d.byteorder == ">":
        raise ValueError(f"{d}: big-endian dtypes have no rung name")
    return _DTYPE_NAMES[d.name]


def _attr(value):
    """Python's forms of an attribute value: numpy scalars as numbers, dtypes by name."""
    import numpy as np
    if isinstance(value, (list, tuple)):
        return [_attr(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return dtype_name(value)
    return value


def _slot_types(op: OpInfo, n: int):
    """The declared type of each of n operands (a variadic operand repeats)."""
    out = []
    for i in range(n):
        if i < len(op.operands):
            out.append(op.operands[i].type)
        elif op.operands and op.operands[-1].arity == "variadic":
            out.append(op.operands[-1].type)
        else:
            out.append(None)
    return out


def _dtype_of(x) -> Optional[str]:
    from .graph import Value
    if isinstance(x, (Value, Tensor)):
        return x.dtype
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return None
    try:
        return dtype_name(dtype)
    except (KeyError, TypeError, ValueError):
        return None


_FLOATS = ("f16", "bf16", "f32", "f64")


def _literal(op: OpInfo, i: int, value, slots, operands):
    """A Python number as a 0-d array of the dtype its slot is bound to."""
    import numpy as np
    slot = slots[i]
    dtype = slot if slot in _DTYPE_NAMES.values() else None
    if dtype is None:
        for j, other in enumerate(operands):
            if j != i and slots[j] == slot and not isinstance(other, (bool, int, float)):
                dtype = _dtype_of(other)
                if dtype:
                    break
    where = f"operand {i} of `{op.name}`"
    if dtype is None:
        raise _errors._at_caller(_error("N0011", f"{where}: the Python number {value!r} has no dtype here",
                                        ["pass an array or a numpy scalar: np.float32(2.0)"]))
    if isinstance(value, bool):
        if dtype != "bool":
            raise _errors._at_caller(_error("N0011", f"{where}: a bool literal for a {dtype} operand"))
        return np.array(value)
    if dtype == "bool" or (isinstance(value, float) and dtype not in _FLOATS):
        raise _errors._at_caller(_error("N0011", f"{where}: the literal {value!r} is not of kind {dtype}",
                                        ["literals are never converted between kinds"]))
    if dtype == "bf16":  # numpy has no bf16: rung's own cast rounds once, to nearest even
        return _rung._evaluate("cast", [np.array(value, np.float64)], {"to": "bf16"})[0]
    np_dtype = np.dtype({v: k for k, v in _DTYPE_NAMES.items()}[dtype])
    if isinstance(value, int) and dtype not in _FLOATS:
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            raise _errors._at_caller(_error("N0011", f"{where}: the literal {value} does not fit in {dtype}"))
    return np.array(value, dtype=np_dtype)


def _error(code, message, notes=()):
    return Error([_errors.Diagnostic(code, "error", message, None, list(notes))])


def _apply(name: str, operands, attrs):
    from .graph import Value
    op = _CATALOG.get(name)
    attrs = {k: _attr(v) for k, v in attrs.items() if v is not None}
    operands = list(operands)
    graph = next((o.graph for o in operands if isinstance(o, Value)), None)
    try:
        if op is not None:
            slots = _slot_types(op, len(operands))
            operands = [_literal(op, i, o, slots, operands) if isinstance(o, (bool, int, float)) else o
                        for i, o in enumerate(operands)]
        if graph is not None:
            values = [o._v if isinstance(o, Value) else graph.constant(o)._v for o in operands]
            for o in operands:
                if isinstance(o, Value) and o.graph is not graph:
                    raise _error("M0031", f"`{name}`: operands of two graphs", ["values of two graphs cannot be combined"])
            out = [graph._value(v) for v in graph._b.apply(name, values, attrs)]
        else:
            out = [_as_numpy(t) for t in _rung._evaluate(name, operands, attrs)]
    except Error as e:
        raise _errors._at_caller(e) from None
    return out[0] if len(out) == 1 else tuple(out)


def _make(op: OpInfo):
    names = {o.name for o in op.operands}
    variadic = bool(op.operands) and op.operands[-1].arity == "variadic"

    def apply(*args, **kwargs):
        operands = list(args)
        if variadic and len(args) == len(op.operands) and isinstance(args[-1], (list, tuple)):
            operands = list(args[:-1]) + list(args[-1])  # concat([a, b], axis=0)
        attrs = {}
        for k, v in kwargs.items():
            if k in names and not any(a.name == k for a in op.attrs):
                idx = [o.name for o in op.operands].index(k)
                if idx != len(operands):
                    raise TypeError(f"{op.name}(): operand {k!r} must follow the operands before it")
                operands.append(v)
            else:
                attrs[k] = v
        return _apply(op.name, operands, attrs)

    params = []
    for o in op.operands:
        if o.arity == "variadic":
            params.append(inspect.Parameter(o.name, inspect.Parameter.VAR_POSITIONAL))
        else:
            default = None if o.arity == "optional" else inspect.Parameter.empty
            params.append(inspect.Parameter(o.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
    for a in op.attrs:
        default = inspect.Parameter.empty if a.required else a.default
        params.append(inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, default=default))
    try:
        apply.__signature__ = inspect.Signature(params)
    except ValueError:  # a name the registry shares between an operand and an attribute
        pass
    lines = [op.signature, "", op.summary]
    if op.attrs:
        lines += ["", "Attributes:"] + [f"    {a.text}" + (f" -- {a.doc}" if a.doc else "") for a in op.attrs]
    lines += ["", "Tolerance class: " + ", ".join(f"{t} {c}" for t, c in op.tolerance.items()), f"Family: {op.family}"]
    apply.__name__ = apply.__qualname__ = op.name + ("_" if keyword.iskeyword(op.name) else "")
    apply.__doc__ = "\n".join(lines)
    apply.__module__ = __name__
    return apply


__all__ = ["catalog", "info", "dtype_name"]
for _name, _op in _CATALOG.items():
    _fn = _make(_op)
    globals()[_fn.__name__] = _fn
    __all__.append(_fn.__name__)
del _name, _op, _fn
