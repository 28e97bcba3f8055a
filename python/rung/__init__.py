"""rung: a deterministic tensor compiler, from Python (docs/python.md).

    import rung, numpy as np
    program = rung.load("examples/center.workflow.json")
    out = program.run(x=np.ones((5, 8), np.float32), w=np.eye(8, 4, dtype=np.float32))

Programs load from .rung source, .keg files or workflow documents (paths, text or bytes);
``program.session(backend=...)`` runs them with full results (outputs as rung.Tensor,
the run record, warnings, statistics). ``rung.ops`` and ``rung.graph`` build programs from
the op registry; ``rung.value_and_grad`` differentiates them. Failures raise rung.Error.
"""

from . import _rung
from ._errors import Diagnostic, Error, Location, RungWarning
from ._progress import Progress
from ._program import Entry, Param, Program, RunRecord, RunResult, Session, Tensor, backends, load
from . import graph
from . import ops
from .graph import Function, Graph, Value, compile, value_and_grad


__all__ = ["Diagnostic", "Entry", "Error", "Function", "Graph", "Location", "Param", "Program", "Progress",
           "RunRecord", "RunResult", "RungWarning", "Session", "Tensor", "Value", "backends", "compile", "graph",
           "load", "ops", "value_and_grad"]
