"""Building programs in Python from the op registry (docs/python.md).

    x = rung.graph.input("x", "f32[B, 10]")
    y = rung.ops.softmax(x, axis=1)          # typed now: a shape error raises on this line
    probs = rung.graph.function("probs", [x], {"y": y})
    program = rung.compile(probs, tier="debug")

Each op applied to values runs the registry's type inference at once. The graph is
hash-consed: an expression built twice is the same node, and the same Python object.
"""

import builtins
from typing import Dict, Optional, Sequence, Union

from . import _rung
from . import _errors
from ._errors import Error
from ._program import Program, Tensor, _entry

__all__ = ["Graph", "Value", "Function", "input", "constant", "output", "function", "compile", "value_and_grad"]


class Value:
    """One value of a graph: an input, a constant or an op's result. Its ``type`` is known
    as soon as it is built ("f32[B, 10]"); ``+ - * / @`` and unary ``-`` apply the ops."""

    __slots__ = ("graph", "_v", "_info")

    def __init__(self, graph: "Graph", raw):
        self.graph = graph
        self._v = raw
        self._info = raw._info

    @property
    def type(self) -> str:
        return self._info["type"]

    @property
    def dtype(self) -> str:
        return self._info["dtype"]

    @property
    def shape(self):
        """Extents, None where a dim is symbolic."""
        return self._info["shape"]

    @property
    def dims(self):
        return self._info["dims"]

    @property
    def op(self) -> str:
        return self._info["op"]

    @property
    def name(self) -> str:
        """An input's name ("" for other values)."""
        return self._info["name"]

    def __repr__(self):
        what = f"input {self.name}" if self.op == "param" else self.op
        return f"<rung.graph.Value {what}: {self.type}>"

    def __bool__(self):
        raise TypeError("a graph value has no truth value while the graph is built")

    def _binary(self, name, other, reflected=False):
        from . import ops
        a, b = (other, self) if reflected else (self, other)
        return ops._apply(name, (a, b), {})

    def __add__(self, o): return self._binary("add", o)
    def __radd__(self, o): return self._binary("add", o, True)
    def __sub__(self, o): return self._binary("sub", o)
    def __rsub__(self, o): return self._binary("sub", o, True)
    def __mul__(self, o): return self._binary("mul", o)
    def __rmul__(self, o): return self._binary("mul", o, True)
    def __truediv__(self, o): return self._binary("div", o)
    def __rtruediv__(self, o): return self._binary("div", o, True)
    def __matmul__(self, o): return self._binary("matmul", o)
    def __rmatmul__(self, o): return self._binary("matmul", o, True)

    def __neg__(self):
        from . import ops
        return ops._apply("neg", (self,), {})

    # numpy must not turn `array + value` into an array of objects: it defers to us.
    __array_ufunc__ = None


def _wrap_error(e: Error) -> Error:
    return _errors._at_caller(e)


class Graph:
    """A graph under construction. ``rung.graph.input``/``constant``/``function`` use a
    default one; make a Graph of your own to keep work apart (values of two graphs cannot
    be combined: M0031)."""

    def __init__(self):
        self._b = _rung._Builder()
        self._values = {}  # (builder, node, output) -> Value: one Python object per node
        self._inputs = []
        self._outputs = []

    def _value(self, raw) -> Value:
        key = raw._key()
        v = self._values.get(key)
        if v is None:
            v = self._values[key] = Value(self, raw)
        return v

    def input(self, name: str, type: str) -> Value:
        """A named input of a type as the language writes it: "f32[B, 10]", "i64"."""
        try:
            v = self._value(self._b.input(name, type))
        except Error as e:
            raise _wrap_error(e) from None
        if v not in self._inputs:
            self._inputs.append(v)
        return v

    def constant(self, array) -> Value:
        """A constant holding a copy of ``array`` (a numpy array, rung.Tensor, ...)."""
        try:
            return self._value(self._b.constant(array))
        except Error as e:
            raise _wrap_error(e) from None

    def output(self, value: Value, name: Optional[str] = None) -> Value:
        """Marks a result for ``function(name)`` without a result list (named "result",
        or "result.N" when there are several, unless named here)."""
        self._outputs.append((name, value))
        return value

    def function(self, name: str, params: Optional[Sequence[Value]] = None,
                 results: Union[None, Value, Sequence[Value], Dict[str, Value]] = None) -> "Function":
        """The function ``name`` computing ``results`` from ``params``.

        ``params`` defaults to every input of this graph in the order made; ``results`` is
        a dict (name -> value), a list (named "result.0", ...), one value ("result"), or
        None for the values given to ``output``."""
        if params is None:
            params = list(self._inputs)
        if results is None:
            if not self._outputs:
                raise TypeError("function() without results: pass them, or call output() first")
            named = [n for n, _ in self._outputs]
            if builtins.all(n is None for n in named):
                results = [v for _, v in self._outputs] if len(named) > 1 else self._outputs[0][1]
            else:
                results = {(n if n is not None else f"result.{i}"): v for i, (n, v) in enumerate(self._outputs)}
        if isinstance(results, Value):
            pairs = [("result", results)]
        elif isinstance(results, dict):
            pairs = list(results.items())
        else:
            results = list(results)
            pairs = [("result" if len(results) == 1 else f"result.{i}", v) for i, v in enumerate(results)]
        for n, v in pairs:
            if not isinstance(v, Value):
                raise TypeError(f"result {n!r} is a {type(v).__name__}, not a graph value")
        for p in params:
            if not isinstance(p, Value):
                raise TypeError(f"a parameter is a {type(p).__name__}, not a graph value")
        try:
            return Function(self._b.function(name, [p._v for p in params], [(n, v._v) for n, v in pairs]))
        except Error as e:
            raise _wrap_error(e) from None


class Function:
    """A finished function: a GraphIR region with named parameters and results.
    ``fingerprint`` is the GraphIR's; ``save`` writes a .keg file (it declares no tier:
    ``rung.load(path, tier=...)``); ``compile`` (or ``rung.compile``) gives a Program."""

    def __init__(self, raw):
        self._f = raw

    @property
    def name(self) -> str:
        return self._f.name

    @property
    def fingerprint(self) -> str:
        return self._f.fingerprint

    @property
    def entry(self):
        return _entry(self._f._entry())

    @property
    def params(self):
        return self.entry.params

    @property
    def results(self):
        return self.entry.results

    def serialize(self) -> bytes:
        return self._f.serialize()

    def save(self, path) -> None:
        import os
        self._f.save(os.fspath(path))

    def compile(self, tier: Optional[str] = None, tolerance: Optional[str] = None) -> Program:
        return self._f._compile(tier, tolerance)

    def __repr__(self):
        e = self.entry
        ps = ", ".join(f"{p.name}: {p.type}" for p in e.params)
        rs = ", ".join(f"{r.name}: {r.type}" for r in e.results)
        return f"<rung.graph.Function {e.name}({ps}) -> ({rs})>"


_default = Graph()


def input(name: str, type: str) -> Value:
    """An input of the default graph (see Graph.input)."""
    return _default.input(name, type)


def constant(array) -> Value:
    return _default.constant(array)


def output(value: Value, name: Optional[str] = None) -> Value:
    return value.graph.output(value, name)


def function(name: str, params: Optional[Sequence[Value]] = None, results=None) -> Function:
    """A function of the graph its values belong to (see Graph.function)."""
    graph = None
    for v in list(params or []) + (list(results.values()) if isinstance(results, dict)
                                    else [results] if isinstance(results, Value) else list(results or [])):
        if isinstance(v, Value):
            graph = v.graph
            break
    return (graph or _default).function(name, params, results)


def compile(source, tier: Optional[str] = None, tolerance: Optional[str] = None) -> Program:
    """A Program from a Function (the tier is required: a function declares none), a
    Program (compiled again at another tier or class: C0016), or anything rung.load takes."""
    if isinstance(source, Function):
        return source.compile(tier, tolerance)
    if isinstance(source, Program):
        return source._recompile(tier, tolerance)
    from ._program import load
    return load(source, tier, tolerance)


def value_and_grad(source, wrt: Union[str, Sequence[str]], entry: Optional[str] = None):
    """Reverse-mode gradients of a function (or a program's entry) whose first result is a
    floating-point scalar: a function ``<name>.grad`` with the same parameters returning the
    original results, then ``grad.<p>`` for each parameter named in ``wrt``. A Function
    gives a Function; a Program a Program compiled at its tier."""
    names = [wrt] if isinstance(wrt, str) else list(wrt)
    if isinstance(source, Function):
        return Function(_rung._value_and_grad_function(source._f, names))
    if isinstance(source, Program):
        return _rung._value_and_grad_program(source, entry, names)
    raise TypeError(f"value_and_grad takes a rung.graph.Function or a rung.Program, not {type(source).__name__}")

