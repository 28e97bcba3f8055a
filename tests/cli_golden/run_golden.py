#!/usr/bin/python3
"""Golden tests of the `rung` command line: argv in, exit code + stdout + stderr out, byte for byte.

    /usr/bin/python3 tests/cli_golden/run_golden.py --rung build/tools/rung/rung \
        [--cases tests/cli_golden/cases.json] [--golden tests/cli_golden/golden] \
        [--update] [--filter REGEX] [--jobs N] [--keep] [--times] [--src DIR]

Run from the source root (CTest's cli.golden does). Each case of cases.json runs the binary
with a clean environment (RUNG_HOME a fresh store, HOME a fresh folder, RUNG_CPU_THREADS=2,
LC_ALL=C, no RUNG_DATA_PATH) in a fresh temporary folder, and its exit code, stdout, stderr
and the files it names are rendered as one text (golden/<case>.txt) and compared with the
committed one. A difference prints a unified diff naming the case; the exit code is 1.
`--update` rewrites the golden files (and removes those of cases that no longer exist).

Only what legitimately varies between runs is normalised, each by a named rule that a case
(or the defaults of cases.json) asks for: see NORMALISERS below and tests/cli_golden/README.md.
Everything else (fingerprints, output hashes, IR dumps, diagnostics) compares byte for byte.
Standard library only: .npy inputs are written here, byte for byte the same everywhere.
"""
import argparse
import concurrent.futures
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time

# ---------------------------------------------------------------------------------------
# Inputs: files a case (or its group) creates in its temporary folder before it runs.
# ---------------------------------------------------------------------------------------

NPY_DTYPES = {  # descr -> struct code
    "<f4": "f", "<f8": "d", "<f2": "e", "<i2": "h", "<i4": "i", "<i8": "q",
    "|i1": "b", "|u1": "B", "<u2": "H", "<u4": "I", "<u8": "Q", "|b1": "?",
}


def npy_bytes(spec):
    """A version 1.0 .npy file: {"dtype": "<f4", "shape": [3, 8], "values": [...] | "expr": "i*0.5-2"}.
    `expr` is evaluated for each flat index i (0, 1, ...) with `math` available."""
    descr = spec["dtype"]
    shape = [int(d) for d in spec["shape"]]
    n = 1
    for d in shape:
        n *= d
    if "values" in spec:
        vals = list(spec["values"])
    else:
        import math
        code = compile(spec["expr"], "<npy expr>", "eval")
        vals = [eval(code, {"math": math}, {"i": i}) for i in range(n)]
    if len(vals) != n:
        raise ValueError(f"npy spec: {len(vals)} values for shape {shape}")
    code = NPY_DTYPES[descr]
    if code in "fde":
        vals = [float(v) for v in vals]
    elif code == "?":
        vals = [bool(v) for v in vals]
    else:
        vals = [int(v) for v in vals]
    dims = f"{shape[0]}," if len(shape) == 1 else ", ".join(str(d) for d in shape)
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if spec.get("fortran") else "False", dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (n, code), *vals)
    out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data
    if "truncate" in spec:  # drop this many bytes from the end (a damaged file)
        out = out[: len(out) - int(spec["truncate"])]
    return out


def digits_csv(spec):
    """A synthetic stand-in for the UCI digits CSV (rows x 64 pixels 0..16 and a label 0..9):
    deterministic, so a run on it has fixed losses and hashes."""
    rows = int(spec.get("rows", 1797))
    lines = []
    for r in range(rows):
        label = r % 10
        pix = [((r * 7 + c * 3 + label * c) % 17) if (c + label) % 5 else 16 for c in range(64)]
        lines.append(",".join(str(p) for p in pix) + f",{label}")
    return ("\n".join(lines) + "\n").encode()


def make_file(spec, ctx):
    path = os.path.join(ctx["tmp"], expand(spec["path"], ctx))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if "text" in spec:
        data = spec["text"].encode("utf-8")
    elif "hex" in spec:
        data = bytes.fromhex(spec["hex"])
    elif "npy" in spec:
        data = npy_bytes(spec["npy"])
    elif "copy" in spec:  # a file of the source tree (relative to the source root), or {tmp}/...
        with open(os.path.join(ctx["src"], expand(spec["copy"], ctx)), "rb") as f:
            data = f.read()
    elif "digits_csv" in spec:
        data = digits_csv(spec["digits_csv"])
    elif "dir" in spec:
        os.makedirs(path, exist_ok=True)
        return
    else:
        raise ValueError(f"file spec without content: {spec}")
    if "head" in spec:  # keep only the first N bytes (a truncated file)
        data = data[: int(spec["head"])]
    if "xor_at" in spec:  # flip every bit of the byte at this offset (a damaged file)
        k = int(spec["xor_at"])
        data = data[:k] + bytes([data[k] ^ 0xFF]) + data[k + 1:]
    with open(path, "wb") as f:
        f.write(data)
    if "mode" in spec:
        os.chmod(path, int(spec["mode"], 8))


# ---------------------------------------------------------------------------------------
# Placeholders in argv, stdin and file paths: {tmp} {src} {home} {cap:NAME} {cap:NAME:N}
# ---------------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{(tmp|src|home|cap:([A-Za-z0-9_]+)(?::(\d+))?)\}")


def expand(s, ctx):
    def sub(m):
        if m.group(1) in ("tmp", "src", "home"):
            return ctx[m.group(1)]
        name, n = m.group(2), m.group(3)
        if name not in ctx["captures"]:
            raise KeyError(f"capture `{name}` not set by an earlier case of the group")
        v = ctx["captures"][name]
        return v[: int(n)] if n else v
    return PLACEHOLDER.sub(sub, s)


# ---------------------------------------------------------------------------------------
# Normalisers. Each is narrow: it rewrites one kind of text that legitimately differs
# between runs or machines, into a fixed placeholder, and nothing else.
# ---------------------------------------------------------------------------------------

def norm_paths(text, ctx):
    """The case's temporary folder -> <TMP>, the source root -> <SRC> (records and some
    messages name absolute paths; the runner's folders differ per run and per checkout)."""
    pairs = []
    for path, label in ((ctx["tmp"], "<TMP>"), (ctx["src"], "<SRC>")):
        for p in {path, os.path.realpath(path)}:
            pairs.append((p, label))
    for p, label in sorted(pairs, key=lambda x: -len(x[0])):
        text = text.replace(p, label)
    return text


HEX_TOKEN = re.compile(r"(?<![0-9a-f])[0-9a-f]{8,64}(?![0-9a-f])")


def norm_store_ids(text, ctx):
    """Ids of run records and receipts: each is the SHA3-256 of an entry that holds its date,
    so it differs on every run. Only tokens that are (a prefix of, >= 8 hex digits) the name of
    a genuine entry of this case's store ($RUNG_HOME/records, /receipts: its content hashes to
    its name; a damaged entry a case planted keeps its name) are rewritten, to <record> or
    <receipt>. They are not numbered: a record is content-addressed and its date has one-second
    resolution, so a replay within the same second as its run writes the very same record (the
    same id), one a second later another: whether two ids are equal depends on timing."""
    ids = []
    for kind in ("records", "receipts"):
        d = os.path.join(ctx["home"], kind)
        if os.path.isdir(d):
            for name in os.listdir(d):
                if re.fullmatch(r"[0-9a-f]{64}", name) and os.path.isfile(os.path.join(d, name)):
                    with open(os.path.join(d, name), "rb") as f:  # genuine entries only: a name is
                        if hashlib.sha3_256(f.read()).hexdigest() == name:  # its content's SHA3-256
                            ids.append((name, kind[:-1]))
    if not ids:
        return text

    def sub(m):
        tok = m.group(0)
        for full, kind in ids:
            if full.startswith(tok):
                return f"<{kind}>"
        return tok
    return HEX_TOKEN.sub(sub, text)


DATE = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b")


def norm_dates(text, ctx):
    """UTC timestamps of records and receipts (2026-12-01T23:39:31Z) -> <DATE>."""
    return DATE.sub("<DATE>", text)


PROGRESS = re.compile(
    r"^[ \t]*\[[^\]\n]+\] (?:for|while) loop(?::| done:) [^\n]*\n"   # loop progress, once a second
    r"|^conforming \d+/\d+: [^\n]*\n",                               # receipts conformed before a run
    re.M)


def norm_progress(text, ctx):
    """Progress lines that appear only when something took longer than a second (loop
    progress of the interpreter, `conforming N/M: op dtype` before a run) are dropped."""
    return PROGRESS.sub("", text)


PASS_MS = re.compile(r"^(\S+ +\d+ +\d+ +\d+ +\d+) +\d+\.\d+$", re.M)


def norm_pass_ms(text, ctx):
    """The `ms` column of `--stats` pass tables (wall time) -> <ms>."""
    return PASS_MS.sub(r"\1  <ms>", text)


CPU_MODEL = re.compile(r"cpu: [^(\n\"]*\((highway=)")
SIMD = re.compile(r"simd_target=[A-Za-z0-9_]+")
THREADS_HOST = re.compile(r"(\"threads\": )\d+")
PROFILE16 = re.compile(r"(profile )[0-9a-f]{16}\b")
PROFILE64 = re.compile(r"(\"device_profile_hash\": \")[0-9a-f]{64}\"")


def norm_cpu_device(text, ctx):
    """The cpu backend's device: the host's CPU model and the Highway SIMD target it picked,
    and the device-profile hash made of them -> <cpu-model>, <simd>, <cpu-profile>. Only for
    cases that run the cpu backend (the reference's device is the same everywhere)."""
    text = CPU_MODEL.sub(r"cpu: <cpu-model> (\1", text)
    text = SIMD.sub("simd_target=<simd>", text)
    text = PROFILE16.sub(r"\1<cpu-profile>", text)
    text = PROFILE64.sub(r'\1<cpu-profile>"', text)
    return text


DEVICES_LINE = re.compile(r"^cpu: .* \(\d+ units, \d+ MiB, arch=([A-Za-z0-9_]+), features=[^)\n]*\)$", re.M)
DEVICES_JSON = [
    (re.compile(r"(\"available_bytes\": )\d+"), r"\1<bytes>"),
    (re.compile(r"(\"memory_bytes\": )\d+"), r"\1<bytes>"),
    (re.compile(r"(\"compute_units\": )\d+"), r"\1<n>"),
    (re.compile(r"(\"features\": )\"[^\"\n]*\""), r'\1"<features>"'),
    (re.compile(r"(\"name\": )\"[^\"\n]*\""), r'\1"<cpu-model>"'),
]


def norm_devices(text, ctx):
    """`rung devices`: the host's CPU model, core count, memory and features -> placeholders
    (the line's shape, the arch and the backends list stay)."""
    text = DEVICES_LINE.sub(r"cpu: <cpu-model> (<n> units, <mem> MiB, arch=\1, features=<features>)", text)
    for rx, rep in DEVICES_JSON:
        text = rx.sub(rep, text)
    return text


SIZE = r"\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB)"
BUDGET_LINE = re.compile(r"^(budget +)" + SIZE + r"( \(/proc/meminfo MemAvailable\))$", re.M)
VERDICT_OF = re.compile(r"^(verdict .* of )" + SIZE + r"\)$", re.M)


def norm_mem_available(text, ctx):
    """`rung plan` without --budget: the budget is the host's MemAvailable -> <MemAvailable>."""
    text = BUDGET_LINE.sub(r"\1<MemAvailable>\2", text)
    return VERDICT_OF.sub(r"\1<MemAvailable>)", text)


NORMALISERS = {
    "paths": norm_paths,
    "store_ids": norm_store_ids,
    "dates": norm_dates,
    "progress": norm_progress,
    "pass_ms": norm_pass_ms,
    "cpu_device": norm_cpu_device,
    "devices": norm_devices,
    "mem_available": norm_mem_available,
}
ORDER = ["progress", "paths", "store_ids", "dates", "pass_ms", "cpu_device", "devices", "mem_available"]


# ---------------------------------------------------------------------------------------
# Running a case and rendering what it did
# ---------------------------------------------------------------------------------------

def decode(b):
    return b.decode("utf-8", errors="surrogateescape")


def block(title, text):
    if text == "":
        return f"---- {title}: empty\n"
    out = f"---- {title}\n" + text
    if not text.endswith("\n"):
        out += "\n\\ no newline at end of " + title + "\n"
    return out


def clean_env(ctx, extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RUNG_") and k not in ("HOME", "XDG_RUNTIME_DIR", "NO_COLOR", "CLICOLOR_FORCE")
           and not k.startswith("LC_") and k not in ("LANG", "LANGUAGE")}
    env.update({"HOME": os.path.join(ctx["tmp"], "userhome"), "RUNG_HOME": ctx["home"], "LC_ALL": "C",
                "TERM": "dumb"})
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = expand(v, ctx)
    return env


def run_case(case, ctx, rung, defaults):
    for spec in case.get("files", []):
        make_file(spec, ctx)
    argv = [rung] + [expand(a, ctx) for a in case["argv"]]
    env = clean_env(ctx, {**defaults.get("env", {}), **case.get("env", {})})
    stdin = expand(case["stdin"], ctx).encode() if "stdin" in case else b""
    timeout = case.get("timeout", defaults.get("timeout", 60))
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=ctx["src"], env=env, timeout=timeout)
        rc, out, err = p.returncode, decode(p.stdout), decode(p.stderr)
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", decode(e.stdout or b""), decode(e.stderr or b"")
    ctx["times"][case["name"]] = time.monotonic() - t0
    for name, rx in case.get("capture", {}).items():
        m = re.search(rx, out, re.M)
        if m:
            ctx["captures"][name] = m.group(1)
    names = set(defaults.get("normalise", [])) | set(case.get("normalise", []))
    unknown = names - set(NORMALISERS)
    if unknown:
        raise ValueError(f"case {case['name']}: unknown normaliser(s) {sorted(unknown)}")
    rules = [n for n in ORDER if n in names]

    def norm(t):
        for n in rules:
            t = NORMALISERS[n](t, ctx)
        return t

    text = f"case    {case['name']}\n"
    if case.get("doc"):
        text += f"doc     {case['doc']}\n"
    text += "argv    rung " + " ".join(shlex.quote(a) for a in case["argv"]) + "\n"
    if "stdin" in case:
        text += "stdin   " + json.dumps(case["stdin"]) + "\n"
    if case.get("env"):
        text += "env     " + " ".join(f"{k}={v}" for k, v in sorted(case["env"].items())) + "\n"
    text += "normalised  " + (", ".join(rules) if rules else "nothing") + "\n"
    text += f"exit    {rc}\n"
    text += block("stdout", norm(out))
    text += block("stderr", norm(err))
    for rel in case.get("text_files", []):  # files the command wrote, shown whole
        path = os.path.join(ctx["tmp"], expand(rel, ctx))
        if os.path.isfile(path):
            with open(path, "rb") as f:
                text += block(f"file {rel}", norm(decode(f.read())))
        else:
            text += f"---- file {rel}: absent\n"
    for rel in case.get("binary_files", []):  # files the command wrote, by size and SHA-256
        path = os.path.join(ctx["tmp"], expand(rel, ctx))
        if os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            text += f"---- file {rel}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}\n"
        else:
            text += f"---- file {rel}: absent\n"
    if "list_dir" in case:  # which files a folder holds (names only)
        d = os.path.join(ctx["tmp"], expand(case["list_dir"], ctx))
        names = sorted(os.listdir(d)) if os.path.isdir(d) else None
        text += f"---- dir {case['list_dir']}: " + ("absent" if names is None else " ".join(names) or "empty") + "\n"
    return text, rc


def run_group(group, rung, src, defaults, keep, times):
    """Cases of a group run in order; a `shared` group's cases share one folder and one store."""
    results = []
    base = tempfile.mkdtemp(prefix="rung-golden-")
    try:
        ctx = None
        for i, case in enumerate(group["cases"]):
            if ctx is None or not group.get("shared"):
                tmp = os.path.join(base, f"c{i}")
                os.makedirs(os.path.join(tmp, "userhome"))
                ctx = {"tmp": tmp, "src": src, "home": os.path.join(tmp, "store"), "captures": {}, "times": times}
                for spec in group.get("files", []):
                    make_file(spec, ctx)
            try:
                results.append((case, *run_case(case, ctx, rung, defaults)))
            except Exception as e:  # a broken case description, not a rung failure
                results.append((case, f"case    {case['name']}\nrunner error: {e!r}\n", "runner-error"))
    finally:
        if keep:
            print(f"kept {base} (group {group['name']})", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    return results


def build_backends(rung):
    """The backends this binary was built with: some outputs list them (cases marked
    `build_dependent` are compared only against a binary with the golden files' backends)."""
    with tempfile.TemporaryDirectory(prefix="rung-golden-") as tmp:
        env = clean_env({"tmp": tmp, "home": os.path.join(tmp, "store"), "src": tmp}, {})
        p = subprocess.run([rung, "devices", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        return ",".join(json.loads(p.stdout)["backends"])
    except Exception:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rung", required=True, help="the rung binary under test")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--cases", default=os.path.join(here, "cases.json"))
    ap.add_argument("--golden", default=os.path.join(here, "golden"))
    ap.add_argument("--update", action="store_true", help="rewrite the golden files from this binary")
    ap.add_argument("--filter", help="only cases whose name matches this regex (search)")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders")
    ap.add_argument("--times", action="store_true", help="print the ten slowest cases")
    ap.add_argument("--src", default=os.getcwd(), help="the source root (default: the current folder)")
    args = ap.parse_args()

    rung = os.path.abspath(args.rung)
    src = os.path.abspath(args.src)
    with open(args.cases) as f:
        spec = json.load(f)
    defaults = spec.get("defaults", {})
    groups = spec["groups"]
    seen = set()
    for g in groups:
        for c in g["cases"]:
            if c["name"] in seen or not re.fullmatch(r"[A-Za-z0-9_.-]+", c["name"]):
                sys.exit(f"cases: duplicate or malformed case name {c['name']!r}")
            seen.add(c["name"])
    if args.filter:
        rx = re.compile(args.filter)
        groups = [{**g, "cases": [c for c in g["cases"] if rx.search(c["name"])]} for g in groups]
        groups = [g for g in groups if g["cases"]]
        # a shared group's later cases may need its earlier ones (captures, store): keep whole groups
        full = {g["name"]: g for g in spec["groups"]}
        groups = [full[g["name"]] if g.get("shared") else g for g in groups]

    backends = build_backends(rung)
    build_file = os.path.join(args.golden, "BUILD")
    golden_backends = open(build_file).read().strip() if os.path.exists(build_file) else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        times = {}
        futures = [pool.submit(run_group, g, rung, src, defaults, args.keep, times) for g in groups]
        results = [r for fu in futures for r in fu.result()]

    if args.times:
        for name, t in sorted(times.items(), key=lambda x: -x[1])[:10]:
            print(f"{t:7.2f} s  {name}")
        print(f"{sum(times.values()):7.2f} s  in all ({len(times)} cases)")
    os.makedirs(args.golden, exist_ok=True)
    failed, skipped, passed, written = [], [], 0, 0
    for case, text, rc in results:
        path = os.path.join(args.golden, case["name"] + ".txt")
        want_rc = case.get("exit")
        if rc in ("runner-error", "timeout"):
            failed.append(case["name"])
            print(f"FAIL {case['name']}: " + ("the case could not be run" if rc == "runner-error" else "timed out") + f"\n{text}")
            continue
        intent = "" if want_rc is None or rc == want_rc else f"exit code {rc}, cases.json says {want_rc}"
        if args.update:
            if intent:  # never bless an exit code the case description does not expect
                failed.append(case["name"])
                print(f"FAIL {case['name']}: {intent}; golden file not written\n{text}")
                continue
            with open(path, "wb") as f:
                f.write(text.encode("utf-8", errors="surrogateescape"))
            written += 1
            continue
        if case.get("build_dependent") and golden_backends is not None and backends != golden_backends:
            skipped.append(case["name"])
            continue
        if not os.path.exists(path):
            failed.append(case["name"])
            print(f"FAIL {case['name']}: no golden file {path} (run with --update)\n{text}")
            continue
        with open(path, "rb") as f:
            want = decode(f.read())
        if want == text and not intent:
            passed += 1
            continue
        failed.append(case["name"])
        diff = difflib.unified_diff(want.splitlines(keepends=True), text.splitlines(keepends=True),
                                    fromfile=f"golden/{case['name']}.txt (expected)",
                                    tofile=f"{case['name']} (actual, {args.rung})")
        print(f"FAIL {case['name']}: " + ("; ".join(x for x in ("the output differs from the golden file" if want != text else "", intent) if x)))
        sys.stdout.write("".join(d if d.endswith("\n") else d + "\n\\ no newline\n" for d in diff))
        print("", flush=True)

    if args.update:
        with open(build_file, "w") as f:
            f.write(backends + "\n")
        if not args.filter:
            names = {c["name"] for g in groups for c in g["cases"]}
            for fn in sorted(os.listdir(args.golden)):
                if fn.endswith(".txt") and fn[:-4] not in names:
                    os.remove(os.path.join(args.golden, fn))
                    print(f"removed stale golden/{fn}")
        print(f"wrote {written} golden files to {args.golden} (backends of this build: {backends})")
        if failed:
            print(f"{len(failed)} cases failed to run: {', '.join(failed)}")
            return 1
        return 0
    if not args.filter:
        names = {c["name"] for g in groups for c in g["cases"]}
        stale = [fn for fn in sorted(os.listdir(args.golden)) if fn.endswith(".txt") and fn[:-4] not in names]
        if stale:
            print(f"note: {len(stale)} golden files belong to no case (--update removes them): {', '.join(stale)}")
    if skipped:
        print(f"skipped {len(skipped)} build-dependent cases: this build's backends are {backends}, "
              f"the golden files' {golden_backends}: {', '.join(skipped)}")
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
