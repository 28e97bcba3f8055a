#!/usr/bin/python3
"""The layering rule (docs/api-cpp.md): the surfaces (tools/, python/, studio/, workers/)
call only the public API. Fails naming file:line for any #include that resolves to a header
under src/ (and not to the surface's own folder), and for any CMake link to a library layer
other than the public target rung::rung."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
root = os.path.abspath(root)
surfaces = ["tools", "python", "studio", "workers"]
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
link = re.compile(r'target_link_libraries\s*\(([^)]*)\)', re.S)
layer = re.compile(r'\brung_[a-z0-9_]+\b')
allowed_links = set()
problems = []
checked = 0
for surface in surfaces:
    top = os.path.join(root, surface)
    if not os.path.isdir(top):
        continue
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "build", "__pycache__")]
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if name.endswith((".h", ".hpp", ".c", ".cc", ".cpp")):
                checked += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if os.path.exists(os.path.join(dirpath, target)):
                            continue  # the surface's own header
                        if os.path.exists(os.path.join(root, "src", target)):
                            problems.append(f"{rel}:{n}: includes the private header src/{target}")
            elif name == "CMakeLists.txt":
                text = open(path, encoding="utf-8").read()
                for m in link.finditer(text):
                    for lib in layer.findall(m.group(1)):
                        if lib not in allowed_links:
                            n = text[: m.start()].count("\n") + 1
                            problems.append(f"{rel}:{n}: links the library layer {lib} (surfaces link rung::rung)")
                if "foreach(lib rung_" in text:
                    n = text[: text.index("foreach(lib rung_")].count("\n") + 1
                    problems.append(f"{rel}:{n}: links library layers in a loop (surfaces link rung::rung)")
for p in problems:
    print(p)
if checked == 0:
    print("no surface sources found under", root)
    sys.exit(1)
print(f"layering: {checked} surface files checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
