"""Progress of long work (kernels conformed when a session opens, the loops of a run).

A session reports progress to a callable taking one :class:`Progress`. By default
(``progress=None``) a session on a terminal prints one updating line on ``sys.stderr`` for
work that lasts over a second, and is silent otherwise; ``progress=False`` silences it;
``progress=callable`` gets every report.
"""

import sys
import time
from typing import NamedTuple


class Progress(NamedTuple):
    phase: str        # "conforming", "[train] for loop"
    done: int         # items or iterations finished
    total: int        # -1: unknown (a while loop)
    item: str         # the item now started ("softmax f32"), or ""
    elapsed_s: float  # since the phase began (loops)
    finished: bool    # the last report of this phase


class LinePrinter:
    """One line on a terminal, rewritten in place and cleared when the phase ends."""

    def __init__(self, stream=None, delay_s=1.0):
        self.stream = stream if stream is not None else sys.stderr
        self.delay_s = delay_s
        self.start = {}
        self.shown = False

    def __call__(self, p: Progress):
        now = time.monotonic()
        start = self.start.setdefault(p.phase, now)
        ending = p.finished or (p.total >= 0 and p.done >= p.total)
        if ending:
            self.start.pop(p.phase, None)
        if not self.shown and now - start < self.delay_s:
            return  # only work that lasts
        if ending:
            line = ""
        elif p.total >= 0:
            line = f"{p.phase} {p.done}/{p.total}" + (f": {p.item}" if p.item else "")
        else:
            line = f"{p.phase}: {p.done} so far" + (f", {p.elapsed_s:.1f} s" if p.elapsed_s else "")
        self.stream.write("\r\033[K" + line)
        self.stream.flush()
        self.shown = not ending


def resolve(progress):
    """The callable a session reports to (None: nobody listens)."""
    if progress is False:
        return None
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        if not (isatty and isatty()):
            return None
        progress = LinePrinter()
    if not callable(progress):
        raise TypeError("progress= takes a callable, None (a line on a terminal) or False")
    return lambda d: progress(Progress(**d))
