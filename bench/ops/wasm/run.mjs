// Prints the same lines as the native build of parity.cpp, computed in WebAssembly.
import { readFileSync } from 'node:fs';
const { instance } = await WebAssembly.instantiate(readFileSync(process.argv[2]));
const e = instance.exports;
const hex = (v, w) => (BigInt.asUintN(w * 4, v)).toString(16).padStart(w, '0');
for (let fn = 0; fn <= 12; ++fn)
  for (let part = 0; part < 16; ++part)
    console.log(`fn ${fn} part ${part} ${hex(e.digest(fn, BigInt(part) << 28n, BigInt(part + 1) << 28n, 16n), 16)}`);
console.log(`matmul ${hex(e.matmul_digest(64, 1024), 16)}`);
console.log(`sum ${hex(BigInt(e.sum_bits(10000000) >>> 0), 8)}`);
