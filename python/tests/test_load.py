"""rung.load from paths, text and bytes; entries; determinism never defaulted; rung.Error."""

import pickle

import numpy as np
import pytest

import rung
from helpers import EXAMPLES, IDENTITY, module


def test_load_a_workflow_by_path(center):
    assert center.module_name == "center_and_project"
    assert (center.tier, center.tolerance) == ("debug", "exact")
    assert len(center.fingerprint) == 64 and int(center.fingerprint, 16) >= 0
    (entry,) = center.entries
    assert [p.name for p in entry.params] == ["x", "w"]
    x, w = entry.params
    assert (x.type, x.dtype, x.shape, x.dims) == ("f32[N, 8]", "f32", (None, 8), ("N", "8"))
    assert w.shape == (8, 4)
    assert [r.name for r in entry.results] == ["y", "column_means"]
    assert center.entry().name == entry.name


def test_the_same_program_from_a_path_text_or_bytes_has_one_fingerprint():
    path = EXAMPLES / "center.workflow.json"
    text = path.read_text()
    by_path = rung.load(path)  # a PathLike
    by_text = rung.load(text)
    by_bytes = rung.load(text.encode())
    assert by_path.fingerprint == by_text.fingerprint == by_bytes.fingerprint


def test_rung_source_text_and_keg_bytes_round_trip(tmp_path):
    p = module(IDENTITY)
    keg = p.serialize()
    assert keg[:4] == b"KEG\0"
    again = rung.load(keg)
    assert again.fingerprint == p.fingerprint
    p.save(tmp_path / "identity.keg")
    assert rung.load(str(tmp_path / "identity.keg")).fingerprint == p.fingerprint


def test_a_tier_given_overrides_the_declared_one_with_a_warning():
    with pytest.warns(rung.RungWarning, match="C0016") as caught:
        p = rung.load(EXAMPLES / "center.workflow.json", tier="prod", tolerance="default")
    assert p.tier == "prod"
    assert {w.message.code for w in caught} == {"C0016"}


def test_no_tier_anywhere_is_an_error_not_a_default():
    with pytest.raises(rung.Error) as e:
        rung.load("module t;\nexport fn f(x: f32) -> f32 { x }\n")
    assert e.value.code == "E2301"


def test_errors_carry_code_message_location_and_every_diagnostic():
    source = "module t;\ntier debug;\nexport fn f(x: f32[4]) -> f32[4] {\n    x + undefined_name\n}\n"
    with pytest.raises(rung.Error) as e:
        rung.load(source, name="broken.rung")
    err = e.value
    assert isinstance(err, Exception)
    assert err.code.startswith("E") and len(err.code) == 5
    assert "undefined_name" in err.message
    assert err.location is not None
    assert (err.location.file, err.location.line) == ("broken.rung", 4)
    assert err.location.column == source.splitlines()[3].index("undefined_name") + 1
    assert err.diagnostics and err.diagnostics[0].code == err.code
    assert "undefined_name" in str(err) and "broken.rung:4" in str(err)
    clone = pickle.loads(pickle.dumps(err))
    assert (clone.code, clone.location) == (err.code, err.location)


def test_a_missing_file_and_an_unknown_extension_are_coded():
    with pytest.raises(rung.Error) as e:
        rung.load("/nonexistent/program.rung")
    assert e.value.code
    with pytest.raises(rung.Error) as e:
        rung.load(b"\x00\x01 not a program", kind="keg")
    assert e.value.code.startswith("K")


def test_load_refuses_what_is_no_source():
    with pytest.raises(TypeError):
        rung.load(42)


def test_backends_lists_this_builds():
    names = [name for name, _ in rung.backends()]
    assert "cpu" in names and "reference" in names and len(set(names)) == len(names)


def test_entry_choice_is_checked():
    p = module("export fn a(x: f32) -> f32 { x }\nexport fn b(x: f32) -> f32 { -x }\nfn helper(x: f32) -> f32 { x }")
    assert [e.name for e in p.entries] == ["a", "b"]
    with pytest.raises(rung.Error) as e:
        p.entry()
    assert e.value.code == "C0013"  # two exports: name one
    with pytest.raises(rung.Error) as e:
        p.entry("nope")
    assert e.value.code == "X0004"
    with pytest.raises(rung.Error) as e:
        p.entry("helper")
    assert e.value.code == "C0021"
    assert p.run("b", x=np.float32(2.0))["result"] == np.float32(-2.0)
