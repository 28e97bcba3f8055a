// The wasm GEMM kernels against the x86-64 fused chain: every case of cases.bin (written by
// the native `cases`) run under node, each output's bits compared (any NaN equals any NaN:
// outputs are canonicalised after the kernel). Fails unless the exact kernels match on every
// element and the double-rounding tile (the exact tile without its test) does not, which
// shows the data reaches the cases the test exists for.
//   node parity.mjs gemm.wasm cases.bin
import { readFileSync } from 'node:fs';

const [wasmPath, casesPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath));
const e = instance.exports;
const file = readFileSync(casesPath);
const u32 = new Uint32Array(file.buffer, file.byteOffset, file.byteLength / 4);
if (u32[0] !== 0x4d4d4752) throw new Error(`${casesPath}: not a cases file`);
const families = ['random', 'midpoint', 'subnormal', 'boundary', 'cancel', 'specials', 'zeros', 'integers', 'tiny', 'overflow'];
const kernels = [[0, 'exact', true], [2, 'odd', true], [3, 'soft', true], [1, 'rounding2', false]];
const stats = new Map();  // `${kernel}/${family}` -> { bad, elems, tiles: [integer, convert, tiny, redone] }
let at = 2;
const take = (n) => { const v = u32.subarray(at, at + n); at += n; return v; };
const buf = (i, n) => new Uint32Array(e.memory.buffer, e.buffer(i), n);
for (let c = 0; c < u32[1]; ++c) {
  const [fam, M, N, K, ta, tb, acc] = take(7);
  const A = take(M * K), B = take(K * N), C0 = take(M * N), E = take(M * N);
  const [aRs, aKs] = ta ? [1, M] : [K, 1];
  const [bKs, bCs] = tb ? [1, K] : [N, 1];
  for (const [id, name] of kernels) {
    buf(0, A.length).set(A);
    buf(1, B.length).set(B);
    buf(2, C0.length).set(C0);
    if (e.gemm(id, M, N, K, aRs, aKs, bKs, bCs, N, acc) < 0) throw new Error(`kernel ${name} refused case ${c}`);
    const out = buf(2, M * N);
    let bad = 0;
    for (let i = 0; i < M * N; ++i) {
      const x = out[i], y = E[i];
      if (x !== y && !((x & 0x7fffffff) > 0x7f800000 && (y & 0x7fffffff) > 0x7f800000)) ++bad;
    }
    const key = `${name}/${families[fam]}`;
    const s = stats.get(key) ?? { bad: 0, elems: 0, tiles: [0, 0, 0, 0] };
    s.bad += bad; s.elems += M * N;
    for (let f = 0; f < 4; ++f) s.tiles[f] += Number(e.tiles(f));
    stats.set(key, s);
  }
}
let fail = false;
const forms = ['integer', 'convert', 'convert+tiny', 'redone by odd'];
const ran = [0, 0, 0, 0];
for (const f of families) stats.get(`exact/${f}`).tiles.forEach((n, i) => { ran[i] += n; });
console.log(`exact tiles by form: ${forms.map((f, i) => `${f} ${ran[i]}`).join(', ')}`);
if (ran.some((n) => n === 0)) { console.log('FAIL: a form of the exact kernel never ran'); fail = true; }
for (const [, name, exact] of kernels) {
  let total = 0;
  const row = families.map((f) => {
    const s = stats.get(`${name}/${f}`);
    total += s.bad;
    return `${f} ${s.bad}/${s.elems}` + (name === 'exact' ? ` (tiles ${s.tiles.join('/')})` : '');
  });
  console.log(`${name.padEnd(9)} mismatches: ${row.join(', ')}`);
  if (exact && total !== 0) { console.log(`FAIL: ${name} differs from the fused chain`); fail = true; }
  if (!exact && total === 0) { console.log(`FAIL: ${name} matches: the data misses the hard cases`); fail = true; }
}
console.log(fail ? 'parity: FAIL' : `parity: ok (${u32[1]} cases)`);
process.exit(fail ? 1 : 0);
