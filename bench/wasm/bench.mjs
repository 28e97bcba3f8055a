// GEMM speed under node: C = A B (f32, row-major, n x n x n) with the kernels of gemm.wasm
// (harness.cpp) and, with --ort, onnxruntime-web's WASM backend on the same inputs (a MatMul
// model from matmul_onnx.py). Prints one line per (kernel, n): best-of-reps GFLOP/s, and for
// the inexact kernels the fraction of outputs whose bits differ from the exact chain.
//   node bench.mjs gemm.wasm [--sizes 256,512,1024] [--kernels exact,odd,unfused,soft]
//        [--ort MODEL_DIR] [--threads 1] [--reps 5] [--data uniform|integers]
// --threads: onnxruntime-web's numThreads, and as many worker threads for the wasm kernels.
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

// With --threads T > 1 the wasm kernels run on T worker threads, each its own instance
// computing a block of C's rows (whole chains per thread, as the engine's cpu backend splits).
if (!isMainThread) {
  const { instance } = await WebAssembly.instantiate(readFileSync(workerData.wasm));
  const w = instance.exports;
  let job = null;
  parentPort.on('message', (m) => {
    if (m.type === 'prep') {
      job = m;
      new Float32Array(w.memory.buffer, w.buffer(0), m.A.length).set(m.A);
      new Float32Array(w.memory.buffer, w.buffer(1), m.B.length).set(m.B);
      parentPort.postMessage('ready');
    } else if (m.type === 'run') {
      if (w.gemm(m.id, job.rows, job.n, job.n, job.n, 1, job.n, 1, job.n, 0) < 0) throw new Error('kernel refused');
      parentPort.postMessage('done');
    } else if (m.type === 'result') {
      parentPort.postMessage(new Float32Array(w.memory.buffer, w.buffer(2), job.rows * job.n).slice());
    } else if (m.type === 'exit') {
      process.exit(0);
    }
  });
}

if (isMainThread) await main();

async function main() {
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const sizes = opt('--sizes', '256,512,1024').split(',').map(Number);
const kernelNames = opt('--kernels', 'exact,odd,unfused').split(',').filter((k) => k);
const ortDir = opt('--ort', null);
const threads = Number(opt('--threads', '1'));
const reps = Number(opt('--reps', '5'));
const kernelIds = { exact: 5, rounding2: 1, odd: 2, soft: 3, unfused: 4 };

const { instance } = await WebAssembly.instantiate(readFileSync(args[0]));
const e = instance.exports;

// Inputs from a fixed xorshift stream (the same for every kernel and peer): uniform in
// [-1, 1), or with --data integers whole numbers in [-4096, 4096] (sums past 2^24 make exact
// float midpoints: the exact kernel's worst case, most tiles redone by round-to-odd).
const data = opt('--data', 'uniform');
function inputs(n, seed) {
  const v = new Float32Array(n * n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < v.length; ++i) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    v[i] = data === 'integers' ? (s % 8193) - 4096 : (s / 2 ** 31) - 1;
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
console.log(`# ${date} UTC, node ${process.version}, ${data} data, threads ${threads}, best of ${reps} interleaved reps; ` +
            `GFLOP/s by wall time (by process CPU time)`);
const wall = () => performance.now() / 1e3;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (const n of sizes) {
  const A = inputs(n, 1 + n), B = inputs(n, 2 + n);
  // Each runner: a name and an async call that leaves its output in `out`. The reps are
  // interleaved (every runner once per rep) so that a busy moment of the shared machine
  // falls on all of them alike; the first call of each is untimed (V8 runs a function's
  // first call in its baseline compiler, Liftoff, and optimised code from a later call on;
  // onnxruntime's session warms up).
  const runners = [];
  const wasmRunner = (name) => ({
    name,
    reps: name === 'soft' ? 1 : reps,
    run: async () => {
      f32(0, n * n).set(A);
      f32(1, n * n).set(B);
      const t0 = wall(), c0 = cpu();
      if (e.gemm(kernelIds[name], n, n, n, n, 1, n, 1, n, 0) < 0) throw new Error(`kernel ${name} refused ${n}`);
      const t = [wall() - t0, cpu() - c0];
      return { t, out: f32(2, n * n).slice() };
    },
  });
  const workers = [];
  if (threads > 1) {
    for (let t = 0; t < threads; ++t) workers.push(new Worker(new URL(import.meta.url), { workerData: { wasm: args[0] } }));
    const reply = (w) => new Promise((res) => w.once('message', res));
    const r0 = (t) => Math.floor((n * t) / threads / 4) * 4;  // row blocks aligned to the 4-row tile
    await Promise.all(workers.map((w, t) => {
      const lo = r0(t), hi = t + 1 === threads ? n : r0(t + 1);
      w.postMessage({ type: 'prep', n, rows: hi - lo, A: A.subarray(lo * n, hi * n), B });
      return reply(w);
    }));
    const threadedRunner = (name) => ({
      name: `${name} x${threads} threads`,
      reps: name === 'soft' ? 1 : reps,
      run: async () => {
        const t0 = wall(), c0 = cpu();
        await Promise.all(workers.map((w) => { w.postMessage({ type: 'run', id: kernelIds[name] }); return reply(w); }));
        const t = [wall() - t0, cpu() - c0];
        const parts = await Promise.all(workers.map((w) => { w.postMessage({ type: 'result' }); return reply(w); }));
        const out = new Float32Array(n * n);
        let at = 0;
        for (const p of parts) { out.set(p, at); at += p.length; }
        return { t, out };
      },
    });
    for (const name of ['exact', ...kernelNames.filter((k) => k !== 'exact')]) runners.push(threadedRunner(name));
  } else {
    for (const name of ['exact', ...kernelNames.filter((k) => k !== 'exact')]) runners.push(wasmRunner(name));
  }
  let session = null;
  if (ort) {
    session = await ort.InferenceSession.create(`${ortDir}/matmul_${n}.onnx`, { executionProviders: ['wasm'] });
    const feeds = { A: new ort.Tensor('float32', A, [n, n]), B: new ort.Tensor('float32', B, [n, n]) };
    runners.push({
      name: `onnxruntime-web ${ort.env.versions?.web ?? ''} wasm`,
      reps,
      run: async () => {
        const t0 = wall(), c0 = cpu();
        const res = await session.run(feeds);
        return { t: [wall() - t0, cpu() - c0], out: res.C.data };
      },
    });
  }
  const best = runners.map(() => [Infinity, Infinity]);
  const outs = [];
  for (let rep = -1; rep < reps; ++rep)
    for (let i = 0; i < runners.length; ++i) {
      if (rep >= runners[i].reps) continue;
      const { t, out } = await runners[i].run();
      if (rep < 0) { outs[i] = out; continue; }
      best[i] = [Math.min(best[i][0], t[0]), Math.min(best[i][1], t[1])];
    }
  if (session) await session.release();
  for (const w of workers) w.postMessage({ type: 'exit' });
  const exactRate = gflops(n, best[0][0]);
  runners.forEach((r, i) => {
    const g = gflops(n, best[i][0]), gc = gflops(n, best[i][1]);
    console.log(`${String(n).padStart(5)}^3  ${r.name.padEnd(26)} ${g.toFixed(2).padStart(6)} (${gc.toFixed(2).padStart(6)}) GFLOP/s` +
                `  exact/this ${(exactRate / g).toFixed(3)}  differs from exact: ${(100 * differ(outs[i], outs[0])).toFixed(1)}%`);
  });
}
}
