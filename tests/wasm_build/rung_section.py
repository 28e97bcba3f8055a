"""rung_section.py MODULE.wasm: print the JSON of the module's custom section `rung`; exit 1
when the module has none, or more than one, or it is not JSON."""
import json
import sys


def uleb(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


data = open(sys.argv[1], "rb").read()
if data[:8] != b"\0asm\1\0\0\0":
    sys.exit(f"{sys.argv[1]}: not a wasm module (version 1)")
i, found = 8, []
while i < len(data):
    kind = data[i]
    size, i = uleb(data, i + 1)
    end = i + size
    if kind == 0:
        n, j = uleb(data, i)
        if data[j:j + n] == b"rung":
            found.append(data[j + n:end])
    i = end
if len(found) != 1:
    sys.exit(f"{sys.argv[1]}: {len(found)} custom sections named rung")
print(json.dumps(json.loads(found[0]), indent=1, sort_keys=True))
