// GEMM speed under node: C = A B (f32, row-major, n x n x n) with the kernels of gemm.wasm
// (harness.cpp) and, with --ort, onnxruntime-web's WASM backend on the same inputs (a MatMul
// model from matmul_onnx.py). Prints one line per (kernel, n): best-of-reps GFLOP/s, and for
// the inexact kernels the fraction of outputs whose bits differ from the exact chain.
//   node bench.mjs gemm.wasm [--sizes 256,512,1024] [--kernels exact,odd,unfused,soft]
//        [--ort MODEL_DIR] [--threads 1] [--reps 5]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const sizes = opt('--sizes', '256,512,1024').split(',').map(Number);
const kernelNames = opt('--kernels', 'exact,odd,unfused').split(',').filter((k) => k);
const ortDir = opt('--ort', null);
const threads = Number(opt('--threads', '1'));
const reps = Number(opt('--reps', '5'));
// --cpu-time: the process's CPU time instead of wall time (on a shared machine a single
// thread's CPU time is what it would take alone; threaded runs need wall time).
const cpuTime = args.includes('--cpu-time');
const clock = cpuTime ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; } : () => performance.now() / 1e3;
const kernelIds = { exact: 5, rounding2: 1, odd: 2, soft: 3, unfused: 4 };

const { instance } = await WebAssembly.instantiate(readFileSync(args[0]));
const e = instance.exports;

// Inputs: uniform in [-1, 1) from a fixed xorshift stream (the same for every kernel and peer).
function inputs(n, seed) {
  const v = new Float32Array(n * n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < v.length; ++i) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    v[i] = (s / 2 ** 31) - 1;
  }
  return v;
}
const f32 = (i, n) => new Float32Array(e.memory.buffer, e.buffer(i), n);
const gflops = (n, s) => (2 * n * n * n) / s / 1e9;
const differ = (x, y) => {
  const a = new Uint32Array(x.buffer, x.byteOffset, x.length), b = new Uint32Array(y.buffer, y.byteOffset, y.length);
  let d = 0;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) ++d;
  return d / a.length;
};

let ort = null;
if (ortDir) {
  ort = await import('onnxruntime-web');  // bench/wasm/node_modules (npm install here)
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
}

const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
console.log(`# ${date} UTC, node ${process.version}, threads ${threads}, best of ${reps}, ${cpuTime ? 'CPU' : 'wall'} time`);
for (const n of sizes) {
  const A = inputs(n, 1 + n), B = inputs(n, 2 + n);
  let exact = null;
  const rows = [];
  const run = (name) => {
    const id = kernelIds[name];
    let best = Infinity;
    const r = name === 'soft' ? 1 : reps;
    // One untimed call first: V8 runs a function's first call in its baseline compiler
    // (Liftoff) and the optimised code from a later call on.
    for (let rep = -1; rep < r; ++rep) {
      f32(0, n * n).set(A);
      f32(1, n * n).set(B);
      const t0 = clock();
      if (e.gemm(id, n, n, n, n, 1, n, 1, n, 0) < 0) throw new Error(`kernel ${name} refused ${n}`);
      if (rep >= 0) best = Math.min(best, clock() - t0);
    }
    return { best, out: f32(2, n * n).slice() };
  };
  const ex = run('exact');
  exact = ex.out;
  for (const name of kernelNames) {
    const r = name === 'exact' ? ex : run(name);
    rows.push([name, gflops(n, r.best), differ(r.out, exact)]);
  }
  if (ort) {
    const session = await ort.InferenceSession.create(`${ortDir}/matmul_${n}.onnx`, { executionProviders: ['wasm'] });
    const feeds = { A: new ort.Tensor('float32', A, [n, n]), B: new ort.Tensor('float32', B, [n, n]) };
    let best = Infinity, out = null;
    for (let rep = 0; rep < reps + 1; ++rep) {  // the first run includes the session's warm-up too
      const t0 = clock();
      const res = await session.run(feeds);
      const t = clock() - t0;
      if (rep > 0) best = Math.min(best, t);
      out = res.C.data;
    }
    rows.push([`onnxruntime-web ${ort.env.versions?.web ?? ''} wasm`, gflops(n, best), differ(out, exact)]);
    await session.release();
  }
  const exactRate = rows.find((r) => r[0] === 'exact')?.[1] ?? gflops(n, ex.best);
  for (const [name, g, d] of rows)
    console.log(`${String(n).padStart(5)}^3  ${name.padEnd(26)} ${g.toFixed(2).padStart(7)} GFLOP/s  exact/this ${(exactRate / g).toFixed(3)}  differs from exact: ${(100 * d).toFixed(1)}%`);
}
