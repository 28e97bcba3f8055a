#!/usr/bin/python3
"""Generate the ONNX backend node tests from the generator scripts Debian's python3-onnx 1.12 ships,
then check every generated file against tests/onnx/node_manifest.txt (path + SHA3-256, sorted).

Run with /usr/bin/python3 (Debian's onnx and numpy live there, another python3 may shadow it):
  /usr/bin/python3 scripts/onnx-node-data.py [-o build/onnx-node] [--write-manifest] [--npy] [--index]
"""
import argparse
import hashlib
import os
import re
import runpy
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "onnx", "node_manifest.txt")


def need(module, package):
    try:
        return __import__(module)
    except ImportError:
        sys.exit(f"onnx-node-data: cannot import {module}: install Debian's {package} "
                 f"(apt-get install {package}) and run with /usr/bin/python3")


def generate(out):
    np = need("numpy", "python3-numpy")
    need("onnx", "python3-onnx")
    # numpy 1.24 removed these aliases; onnx 1.12's generator scripts still use them.
    for name, value in (("float", float), ("int", int), ("bool", bool), ("object", object),
                        ("complex", complex), ("str", str), ("long", int), ("unicode", str)):
        if name not in np.__dict__:
            setattr(np, name, value)
    # Always pass -o: the module's default lies inside the installed package.
    argv = sys.argv
    sys.argv = ["backend-test-tools", "generate-data", "-o", out]
    try:
        runpy.run_module("onnx.backend.test.cmd_tools", run_name="__main__")
    finally:
        sys.argv = argv


def tree_files(out):
    """Relative paths of the generator's files (the .npy we add ourselves are not part of it)."""
    files = []
    for base, dirs, names in os.walk(out):
        dirs.sort()
        for n in names:
            if n.endswith(".npy"):
                continue
            files.append(os.path.relpath(os.path.join(base, n), out))
    return sorted(files)


def sha3(path):
    with open(path, "rb") as f:
        return hashlib.sha3_256(f.read()).hexdigest()


def manifest_lines(out):
    return [f"{rel} {sha3(os.path.join(out, rel))}" for rel in tree_files(out)]


def check_manifest(out):
    """Every file generated and none else; models and inputs byte for byte. An expected output (output_K.pb)
    may differ from the manifest's bytes: numpy's transcendentals depend on the CPU (with AVX-512 numpy 1.24
    takes SVML's arccos, exp, ...), so those are reported, not refused; the judge's rtol 1e-3 absorbs ulps."""
    if not os.path.exists(MANIFEST):
        sys.exit(f"onnx-node-data: no manifest at {MANIFEST}; make one with --write-manifest")
    want = {}
    with open(MANIFEST) as f:
        for line in f:
            rel, digest = line.rsplit(" ", 1)
            want[rel] = digest.strip()
    got = dict(l.rsplit(" ", 1) for l in manifest_lines(out))
    outputs_differ = []
    for rel in sorted(set(want) | set(got)):
        if rel not in got:
            sys.exit(f"onnx-node-data: MISMATCH: {rel} is in the manifest but was not generated")
        if rel not in want:
            sys.exit(f"onnx-node-data: MISMATCH: {rel} is in {out} but not in the manifest (stale? delete {out} and rerun)")
        if want[rel] != got[rel]:
            if re.fullmatch(r"output_\d+\.pb", os.path.basename(rel)):
                outputs_differ.append(rel)
                continue
            sys.exit(f"onnx-node-data: MISMATCH: {rel} differs from the manifest "
                     f"(sha3 {got[rel][:16]}…, manifest {want[rel][:16]}…)")
    if outputs_differ:
        tests = sorted({r.split("/")[1] for r in outputs_differ})
        print(f"onnx-node-data: note: {len(outputs_differ)} expected outputs differ from the manifest's bytes "
              f"(numpy's math library on this CPU): {', '.join(tests)}")
    return len(want)


def count_node_tests(out):
    node = os.path.join(out, "node")
    names = [n for n in os.listdir(node) if os.path.isfile(os.path.join(node, n, "model.onnx"))]
    return len(names), sum(1 for n in names if n.endswith("_expanded"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "build", "onnx-node"),
                    help="output directory (default: build/onnx-node/)")
    ap.add_argument("--write-manifest", action="store_true", help="write tests/onnx/node_manifest.txt")
    ap.add_argument("--npy", action="store_true", help="also write .npy beside every .pb (onnx-node-npy.py)")
    ap.add_argument("--index", action="store_true", help="also write tests/onnx/node_tests.json")
    args = ap.parse_args()
    out = os.path.abspath(args.output)
    os.makedirs(out, exist_ok=True)
    generate(out)
    if args.write_manifest:
        lines = manifest_lines(out)
        os.makedirs(os.path.dirname(MANIFEST), exist_ok=True)
        with open(MANIFEST, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"onnx-node-data: wrote {MANIFEST} ({len(lines)} files)")
    else:
        print(f"onnx-node-data: {check_manifest(out)} files checked against the manifest")
    tests, expanded = count_node_tests(out)
    print(f"onnx-node-data: {tests} node tests ({expanded} _expanded) in {out}/node")
    if args.npy or args.index:
        conv = runpy.run_path(os.path.join(ROOT, "scripts", "onnx-node-npy.py"))
        if args.npy:
            conv["write_npy"](out)
        if args.index:
            conv["write_index"](out, os.path.join(ROOT, "tests", "onnx", "node_tests.json"))


if __name__ == "__main__":
    main()
