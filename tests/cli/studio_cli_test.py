#!/usr/bin/python3
"""`rung studio` (docs/studio.md): serves a built app folder on 127.0.0.1 with the cross-origin
isolation headers and the MIME types the engine needs, refuses every path that tries to
leave the folder, says C0030 for a missing app and C0031 for a busy port, warns C0032 for a
non-loopback address, and exits 0 on SIGTERM and SIGINT. Usage: studio_cli_test.py RUNG"""
import http.client
import os
import re
import signal
import subprocess
import sys
import tempfile

rung = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def start(*args):
    p = subprocess.Popen([rung, "studio", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"serving http://([^/]+):([0-9]+)/", line)
    if not m:
        p.kill()
        out, err = p.communicate()
        raise SystemExit(f"rung studio did not start: {line!r} {err!r}")
    return p, int(m.group(2))


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.putrequest("GET", path, skip_accept_encoding=True)  # the path is sent byte for byte
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def stop(p, sig, what):
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, f"{what}: exits within 10 s")
        return ""
    check(p.returncode == 0 and "stopped" in out, f"{what}: exit 0, says stopped (rc {p.returncode}, {err.strip()!r})")
    return err


with tempfile.TemporaryDirectory() as tmp:
    app = os.path.join(tmp, "app")
    os.makedirs(os.path.join(app, "assets"))
    files = {"index.html": b"<!doctype html><title>studio</title>", "assets/app.js": b"console.log(1);\n",
             "assets/worker.mjs": b"export {};\n", "engine.wasm": b"\0asm\1\0\0\0"}
    for name, data in files.items():
        with open(os.path.join(app, name), "wb") as f:
            f.write(data)
    secret = b"SECRET-OUTSIDE-THE-APP"
    with open(os.path.join(tmp, "secret.txt"), "wb") as f:
        f.write(secret)
    os.symlink(os.path.join(tmp, "secret.txt"), os.path.join(app, "assets", "link.txt"))

    # No app: C0030, naming how to build one.
    r = subprocess.run([rung, "studio", "--app", os.path.join(tmp, "nowhere")], capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "C0030" in r.stderr and "make studio" in r.stderr, f"missing app: C0030 naming make studio ({r.stderr.strip()!r})")

    server, port = start("--port", "0", "--app", app)
    status, headers, body = get(port, "/")
    check(status == 200 and body == files["index.html"], "/ is index.html")
    check(headers.get("content-type", "").startswith("text/html"), f"index.html is text/html ({headers.get('content-type')})")
    check(headers.get("cross-origin-opener-policy") == "same-origin", "COOP same-origin")
    check(headers.get("cross-origin-embedder-policy") == "require-corp", "COEP require-corp")
    for path, ctype in [("/assets/app.js", "text/javascript"), ("/assets/worker.mjs", "text/javascript"), ("/engine.wasm", "application/wasm")]:
        status, headers, body = get(port, path)
        check(status == 200 and body == files[path[1:]] and headers.get("content-type") == ctype and
              headers.get("cross-origin-embedder-policy") == "require-corp", f"{path}: 200, {ctype}, COEP ({status}, {headers.get('content-type')})")
    status, _, _ = get(port, "/assets/missing.js")
    check(status == 404, f"a missing file is 404 ({status})")
    for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/assets/../../secret.txt",
                 "/assets/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/assets/..%5c..%5csecret.txt",
                 "//etc/passwd", "/" + tmp + "/secret.txt", "/assets/link.txt", "/./index.html", "/assets"]:
        status, _, body = get(port, path)
        check(status in (400, 404) and secret not in body and b"root:" not in body, f"{path}: refused ({status})")

    # A busy port: C0031, and the first server keeps serving.
    r = subprocess.run([rung, "studio", "--port", str(port), "--app", app], capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "C0031" in r.stderr, f"busy port: C0031 ({r.returncode}, {r.stderr.strip()!r})")
    check(get(port, "/")[0] == 200, "the first server still serves")
    stop(server, signal.SIGTERM, "SIGTERM")

    # Another address is served only when asked for, with a warning.
    wide, wport = start("--host", "0.0.0.0", "--port", "0", "--app", app)
    check(get(wport, "/")[0] == 200, "--host 0.0.0.0 serves")
    err = stop(wide, signal.SIGINT, "SIGINT (Ctrl-C)")
    check("C0032" in err and "warning" in err, f"--host 0.0.0.0 warns C0032 ({err.strip()!r})")

print(f"{len(failures)} failures" if failures else "all passed")
sys.exit(1 if failures else 0)
