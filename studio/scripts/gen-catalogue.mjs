// Writes src/generated/ops.json from the native `rung ops --json`: the op catalogue the app
// ships is the registry's own listing, never a hand-kept copy. RUNG names the binary
// (default: ../build/tools/rung/rung, the repository's native build).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const rung = process.env.RUNG ?? resolve(here, "../../build/tools/rung/rung");
if (!existsSync(rung)) {
  console.error(`gen-catalogue: no rung binary at ${rung}; build it (make build) or set RUNG=/path/to/rung`);
  process.exit(1);
}
const text = execFileSync(rung, ["ops", "--json"], { encoding: "utf8", maxBuffer: 64 << 20 });
const listing = JSON.parse(text);
if (!Array.isArray(listing.ops) || listing.ops.length !== listing.count) {
  console.error(`gen-catalogue: ${rung} ops --json has no "ops" list of "count" entries`);
  process.exit(1);
}
for (const op of listing.ops) {
  for (const key of ["name", "operands", "results", "attributes", "signature"]) {
    if (!(key in op)) {
      console.error(`gen-catalogue: op ${op.name ?? "?"} lacks "${key}"`);
      process.exit(1);
    }
  }
}
const out = resolve(here, "../src/generated/ops.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(listing) + "\n");
console.log(`gen-catalogue: ${listing.ops.length} ops from ${rung}`);
