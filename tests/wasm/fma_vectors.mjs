// Prints the lines of fma_vectors.cpp's native main(), computed by its wasm32 module.
import { readFileSync } from 'node:fs';
const { instance } = await WebAssembly.instantiate(readFileSync(process.argv[2]));
const e = instance.exports;
const hex = (v, w) => BigInt.asUintN(w * 4, BigInt(v)).toString(16).padStart(w, '0');
const lines = [];
for (let i = 0; i < e.f32_count(); ++i)
  for (let form = 0; form < 3; ++form) lines.push(`f32 ${i} ${form} ${hex(e.f32_result(i, form) >>> 0, 8)}`);
for (let i = 0; i < e.f64_count(); ++i)
  for (let form = 0; form < 2; ++form) lines.push(`f64 ${i} ${form} ${hex(e.f64_result(i, form), 16)}`);
console.log(lines.join('\n'));
