"""rung.Error and rung's diagnostics as Python values.

Every failure of rung on the caller's data is a diagnostic with a code (``E2101``,
``M0003``, ...), a message, maybe a location, and notes; a call that fails raises
:class:`Error` carrying all of them. Warnings of a call that succeeds are issued as
:class:`RungWarning` and kept on the result.
"""

import os
import sys
import warnings
from typing import List, NamedTuple, Optional


class Location(NamedTuple):
    """Where a diagnostic points: a file (or a source's name), 1-based line and column."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}"


class Diagnostic:
    """One diagnostic: code, severity ("error", "warning", "note"), message, location, notes."""

    __slots__ = ("code", "severity", "message", "location", "notes")

    def __init__(self, code: str, severity: str, message: str, location: Optional[Location] = None,
                 notes: Optional[List[str]] = None):
        self.code = code
        self.severity = severity
        self.message = message
        self.location = location
        self.notes = list(notes or [])

    def __repr__(self):
        where = f" at {self.location}" if self.location else ""
        return f"<{self.severity}[{self.code}]{where}: {self.message}>"

    def __str__(self):
        where = f"{self.location}: " if self.location else ""
        lines = [f"{where}{self.severity}[{self.code}]: {self.message}"]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


class Error(Exception):
    """A call into rung failed on the caller's data.

    ``code``, ``message``, ``location`` and ``notes`` are those of the first error;
    ``diagnostics`` holds every diagnostic the call reported (warnings included), and
    ``str(error)`` renders them as the CLI does (source lines, carets, notes).
    """

    def __init__(self, diagnostics: List[Diagnostic], text: str = ""):
        self.diagnostics = list(diagnostics)
        first = next((d for d in self.diagnostics if d.severity == "error"),
                     self.diagnostics[0] if self.diagnostics else Diagnostic("M0000", "error", "unknown error"))
        self.code = first.code
        self.message = first.message
        self.location = first.location
        self.notes = first.notes
        self.text = text or "\n".join(str(d) for d in self.diagnostics)
        super().__init__(self.text)

    def __str__(self):
        return self.text

    def __reduce__(self):
        return (Error, (self.diagnostics, self.text))


class RungWarning(UserWarning):
    """A warning of a call that succeeded (an input copied: M0020; a tier overridden: C0016)."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(str(diagnostic))
        self.code = diagnostic.code
        self.diagnostic = diagnostic


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_frame():
    """The innermost stack frame outside this package: the line of the caller's code."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _PACKAGE_DIR:
        f = f.f_back
    return f


def _at_caller(error: Error) -> Error:
    """Gives an error without a location (the graph builder's) the caller's line."""
    if error.location is None:
        f = _user_frame()
        if f is not None:
            error.location = Location(f.f_code.co_filename, f.f_lineno, 1)
    return error


def _warn(diagnostic: Diagnostic):
    f = _user_frame()
    warnings.warn_explicit(RungWarning(diagnostic), RungWarning,
                           f.f_code.co_filename if f else "<rung>", f.f_lineno if f else 0)
