"""Shared by the pytest suite of `import rung` (python/tests/, docs/python.md).

CTest runs it as `python.pytest` with PYTHONPATH=<build>/python, RUNG_CLI (the CLI binary,
for the same-hash check) and RUNG_SOURCE_DIR. Every run record and receipt goes to a
store of this test session's own (RUNG_HOME), set before any session opens.
"""

import os
import tempfile

import numpy as np
import pytest

_home = tempfile.TemporaryDirectory(prefix="rung-pytest-home-")
os.environ["RUNG_HOME"] = _home.name  # before any session opens: sessions read it then

import rung  # noqa: E402
from helpers import EXAMPLES  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "torch: compares with Debian's CPU PyTorch 1.13 (a correctness peer, slow to import)")


@pytest.fixture(scope="session")
def center():
    """examples/center.workflow.json: y = (x - mean(x, 0)) @ w, and the column means."""
    return rung.load(str(EXAMPLES / "center.workflow.json"))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
