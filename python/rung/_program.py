"""Loading, compiling and running programs: rung.load, Program, Session, RunResult."""

import json
import os
import sys
import types
from typing import Dict, NamedTuple, Optional, Tuple

from . import _rung
from . import _errors
from . import _progress

Tensor = _rung.Tensor
Program = _rung.Program


class Param(NamedTuple):
    """A parameter or result of an entry: ``shape`` has None where a dim is symbolic."""

    name: str
    type: str
    dtype: str
    shape: Tuple[Optional[int], ...]
    dims: Tuple[str, ...]


class Entry(NamedTuple):
    name: str
    exported: bool
    params: Tuple[Param, ...]
    results: Tuple[Param, ...]
    tier: str


def _entry(d) -> Entry:
    return Entry(d["name"], d["exported"], tuple(Param(**p) for p in d["params"]),
                 tuple(Param(**r) for r in d["results"]), d["tier"])


_EXTENSIONS = (".rung", ".keg", ".json", ".onnx")


def load(source, tier: Optional[str] = None, tolerance: Optional[str] = None, *, name: Optional[str] = None,
         kind: Optional[str] = None, dims: Optional[Dict[str, int]] = None, bind: Optional[Dict[str, object]] = None) -> Program:
    """Loads and compiles a program.

    ``source`` is a path (``str`` ending in .rung, .keg, .json or .onnx, or a ``os.PathLike``),
    source text (a ``str`` otherwise: .rung source, or a workflow document when it starts
    with ``{``) or ``bytes`` (a .keg file's, or UTF-8 text). ``tier`` and ``tolerance``
    are never defaulted: the program's own declarations apply, and a value given here
    overrides them with a warning (C0016); a bare .keg graph needs the tier (C0010).
    ``kind`` ("rung", "keg", "workflow", "onnx") and ``name`` (shown in diagnostics) are for
    sources in memory.

    For an .onnx model, ``dims`` binds symbolic dims to extents at import (``{"B": 8}``, as
    ``rung import --dim B=8``) and ``bind`` makes graph inputs constants (``{"starts":
    np.array([1, 0])}``, any array ``rung.Tensor`` takes, as ``--bind starts=FILE.npy``): a bound
    input is no longer a parameter, and shape-like operands computed from it fold (I0012 names
    the inputs to bind).
    """
    path = data = None
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
    elif isinstance(source, str):
        if "\n" not in source and os.path.splitext(source)[1] in _EXTENSIONS:
            path = source
        else:
            data = source.encode("utf-8")
            kind = kind or ("workflow" if source.lstrip().startswith("{") else "rung")
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if kind is None:
            kind = "keg" if data[:4] == b"KEG\0" else "workflow" if data.lstrip().startswith(b"{") else "rung"
    else:
        raise TypeError(f"rung.load takes a path, source text or bytes, not {type(source).__name__}")
    if path is not None and not isinstance(path, str):
        path = os.fsdecode(path)
    if kind not in (None, "rung", "keg", "workflow", "onnx"):
        raise ValueError(f"kind={kind!r}: rung, keg, workflow or onnx")
    default_name = {"keg": "<memory>.keg", "workflow": "<memory>.json", "onnx": "<memory>.onnx"}.get(kind, "<memory>.rung")
    dim_specs = []
    for symbol, extent in (dims or {}).items():
        if isinstance(extent, bool) or not isinstance(extent, int):
            raise TypeError(f"dims[{symbol!r}] must be an int, not {type(extent).__name__}")
        dim_specs.append(f"{symbol}={extent}")
    return _rung._load(path, name or default_name, data, kind or "", tier, tolerance, dim_specs, list((bind or {}).items()))


class RunRecord:
    """The run record: ``id`` (its SHA3 in the store; "" when not written), ``json`` (a
    dict, every field of docs/run-records.md), ``text`` (as `rung record` prints it)."""

    def __init__(self, d):
        self.id = d["id"]
        self.text = d["text"]
        self.replayable = d["replayable"]
        self.convergence_class = d["convergence_class"]
        self._json = d["json"]

    @property
    def json(self) -> dict:
        return json.loads(self._json) if self._json else {}

    def __repr__(self):
        return f"<rung.RunRecord {self.id or '(not written)'}>"


def _namespace(value):
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


class RunResult:
    """What a run gave: ``outputs`` (name -> rung.Tensor, in the entry's result order),
    ``record``, ``warnings`` (list of rung.Diagnostic), ``stats`` (inputs_borrowed,
    inputs_copied, bytes_copied, memory, placements, ...)."""

    def __init__(self, raw):
        self._raw = raw

    # Each made when first asked for: a run's own cost stays what rung spends.
    @property
    def outputs(self) -> Dict[str, Tensor]:
        if "_outputs" not in self.__dict__:
            self.__dict__["_outputs"] = self._raw.outputs
        return self.__dict__["_outputs"]

    @property
    def warnings(self):
        if "_warnings" not in self.__dict__:
            self.__dict__["_warnings"] = self._raw.warnings
        return self.__dict__["_warnings"]

    @property
    def record(self) -> RunRecord:
        if "_record" not in self.__dict__:
            self.__dict__["_record"] = RunRecord(self._raw.record)
        return self.__dict__["_record"]

    @property
    def stats(self):
        if "_stats" not in self.__dict__:
            self.__dict__["_stats"] = _namespace(self._raw.stats)
        return self.__dict__["_stats"]

    def __getattr__(self, key):
        if key in ("entry", "tier", "backend", "fingerprint", "graph_fingerprint", "blockir", "reproducibility"):
            return getattr(self._raw, key)
        raise AttributeError(key)

    def numpy(self) -> dict:
        """The outputs as numpy arrays over rung's memory (no copy; bf16 and block-quantized
        outputs, which numpy cannot hold, stay rung.Tensor)."""
        return {k: _as_numpy(t) for k, t in self.outputs.items()}

    def __getitem__(self, name):
        return self.outputs[name]

    def __repr__(self):
        return f"<rung.RunResult {self.entry}: {', '.join(f'{k}: {t.type}' for k, t in self.outputs.items())}>"


def _as_numpy(t: Tensor):
    if t.dtype in ("bf16", "q8_0", "q4_0"):
        return t
    import numpy as np
    return np.asarray(t)


def _write_stdout(text):
    sys.stdout.write(text)


class Session:
    """A program bound to one backend under a receipts policy. One call at a time (a
    concurrent call raises M0011); close it (or use ``with``) to free what it holds."""

    def __init__(self, program: Program, backend="cpu", receipts="conform", *, progress=None, print=None,
                 write_records=True, shadow=False, offload_threshold=0):
        self.program = program
        self._s = program._open(backend, receipts, write_records, shadow, offload_threshold,
                                _progress.resolve(progress), _write_stdout if print is None else print)

    @property
    def backend(self) -> str:
        return self._s.backend

    @property
    def closed(self) -> bool:
        return self._s.closed

    @property
    def exact_capable(self) -> bool:
        return self._s.exact_capable

    def run(self, entry: Optional[str] = None, *, copy: str = "if_needed", inputs: Optional[dict] = None,
            stream_rows: Optional[int] = None, binding_limit: Optional[int] = None, **arrays) -> RunResult:
        """Runs ``entry`` (None: the only exported one) with inputs by parameter name, as
        keywords or in ``inputs`` (for names that are not identifiers, such as "p.w1").

        C-contiguous arrays in native byte order of the parameter's dtype are borrowed (no
        copy); others are copied once (``copy="if_needed"``, warning M0020, counted in
        ``stats.inputs_copied``) or refused (``copy="never"``, M0006). The GIL is released
        while it runs.
        """
        if inputs:
            named = dict(inputs)
            for k, v in arrays.items():
                if k in named:
                    raise TypeError(f"input {k!r} given twice")
                named[k] = v
        else:
            named = arrays
        result = RunResult(self._s.run(entry, named, copy, stream_rows, binding_limit))
        if result._raw.has_warnings:
            for w in result.warnings:
                _errors._warn(w)
        return result

    def close(self):
        self._s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else self.backend
        return f"<rung.Session {self.program.module_name} on {state}>"


def _entries(self):
    return [_entry(e) for e in self._entries()]


def _program_entry(self, name: Optional[str] = None) -> Entry:
    """The entry a run takes when none is named (the only export), or `name` checked."""
    return _entry(self._entry(name))


def _program_session(self, backend="cpu", receipts="conform", **options) -> Session:
    """Opens a session on ``backend`` ("reference", "cpu", "cuda", "webgpu"; rung.backends()
    lists this build's). ``receipts``: "require" (refuse kernels without a conformance
    receipt), "conform" (check them now) or "ignore". Options: progress (see
    docs/python.md), print (a callable for the program's prints; default sys.stdout),
    write_records, shadow, offload_threshold."""
    return Session(self, backend, receipts, **options)


def _program_run(self, entry: Optional[str] = None, *, backend: str = "cpu", tier: Optional[str] = None,
                 tolerance: Optional[str] = None, copy: str = "if_needed", inputs: Optional[dict] = None, **arrays):
    """Runs an entry and returns its outputs as a dict of numpy arrays over rung's memory.

    The session (one per backend, tier and class) is opened on first use and kept with the
    program. ``tier``/``tolerance`` other than the program's compile it again (C0016)."""
    cache = self.__dict__.setdefault("_run_sessions", {})
    key = (backend, tier, tolerance)
    if key not in cache:
        program = self if tier is None and tolerance is None else self._recompile(tier, tolerance)
        cache[key] = Session(program, backend)
    return cache[key].run(entry, copy=copy, inputs=inputs, **arrays).numpy()


def _program_save(self, path):
    """Writes the whole program as a .keg file (graph and BlockIR), as `rung build` does."""
    with open(path, "wb") as f:
        f.write(self.serialize())


def _program_repr(self):
    return f"<rung.Program {self.module_name} tier {self.tier} {self.tolerance} {self.fingerprint[:12]}>"


Program.entries = property(_entries, doc="The exported entries with their parameters and results.")
Program.entry = _program_entry
Program.session = _program_session
Program.run = _program_run
Program.save = _program_save
Program.__repr__ = _program_repr


def _tensor_numpy(self):
    """A read-only numpy array over this tensor's memory (no copy)."""
    import numpy as np
    return np.asarray(self)


def _tensor_bits(self):
    """The elements' bit patterns as a read-only numpy array of unsigned integers of the
    same width (no copy); block-quantized tensors give their storage bytes."""
    import numpy as np
    return np.asarray(self._bits())


def _tensor_array(self, dtype=None):
    # numpy takes the buffer protocol first; it comes here only when that failed (bf16 and
    # block-quantized tensors), and would otherwise make a 0-d array of objects in silence.
    memoryview(self)  # raises the BufferError that says why
    raise AssertionError("unreachable")


Tensor.numpy = _tensor_numpy
Tensor.__array__ = _tensor_array
Tensor.bits = _tensor_bits


def backends():
    """This build's backends: a list of (name, summary)."""
    return _rung.backends()
