"""Every ```python block of docs/python.md and README.md runs: one after the other in one
namespace per page, from the source folder, as a reader would type them."""

import re

from helpers import SOURCE_DIR

DOC = SOURCE_DIR / "docs" / "python.md"
README = SOURCE_DIR / "README.md"


def blocks(doc=DOC):
    text = doc.read_text()
    return [(text[: m.start()].count("\n") + 2, m.group(1)) for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def test_the_page_has_python_blocks():
    assert len(blocks()) >= 5


def test_every_python_block_runs(monkeypatch, capsys):
    monkeypatch.chdir(SOURCE_DIR)
    namespace = {"__name__": "docs_python"}
    for line, code in blocks():
        # Padded so that tracebacks (and rung.Error locations) name the page's own lines.
        exec(compile("\n" * (line - 1) + code, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "M0006" in printed and "['M0020'] 1" in printed and "N0011" in printed


def test_the_readme_python_example_runs(monkeypatch, capsys):
    monkeypatch.chdir(SOURCE_DIR)
    (line, code), = blocks(README)
    exec(compile("\n" * (line - 1) + code, str(README), "exec"), {"__name__": "readme"})
    assert "column_means: f32[1, 8] sha3 " in capsys.readouterr().out
