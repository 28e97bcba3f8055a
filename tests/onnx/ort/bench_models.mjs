// onnxruntime-node latency per model: median of N runs of test_data_set_0, per thread count, as JSON on stdout.
//   node tests/onnx/ort/bench_models.mjs DIR [--filter REGEX] [--runs N] [--warmup W] [--threads 1,2] [--opt all|disabled]
// DIR holds one folder per model (model.onnx, test_data_set_0/input_K.npy). Default graph optimisations
// 'all': the latency to beat is ORT as people deploy it (the suite runner keeps them off for semantics).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { loadOrt, sessionOptions } from './ort.mjs';
import { readNpy } from './npy.mjs';

function usage(msg) {
  if (msg) console.error(`bench_models: ${msg}`);
  console.error('usage: node tests/onnx/ort/bench_models.mjs DIR [--filter REGEX] [--runs N] [--warmup W] [--threads 1,2] [--opt all|disabled]');
  process.exit(2);
}
const args = process.argv.slice(2);
let dir = null, filter = null, runs = 200, warmup = 20, threads = [1, 2], opt = 'all';
for (let i = 0; i < args.length; i++) {
  const v = () => args[++i] ?? usage(`${args[i - 1]} needs a value`);
  if (args[i] === '--filter') filter = new RegExp(v());
  else if (args[i] === '--runs') runs = Number(v());
  else if (args[i] === '--warmup') warmup = Number(v());
  else if (args[i] === '--threads') threads = v().split(',').map(Number);
  else if (args[i] === '--opt') opt = v();
  else if (args[i].startsWith('--') || dir) usage(`unexpected ${args[i]}`);
  else dir = args[i];
}
if (!dir || !existsSync(dir)) usage(dir ? `${dir} does not exist` : 'DIR missing');
if (!(runs >= 1) || !(warmup >= 0) || threads.some(t => !Number.isInteger(t) || t < 1)) usage('bad --runs/--warmup/--threads');
if (!['all', 'disabled', 'basic', 'extended'].includes(opt)) usage(`bad --opt ${opt}`);

const { ort, version } = loadOrt();
const models = readdirSync(dir).filter(m => existsSync(join(dir, m, 'model.onnx'))).filter(m => !filter || filter.test(m)).sort();
if (models.length === 0) usage(`no model folders in ${dir}`);

const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const result = {};
for (const m of models) {
  result[m] = {};
  for (const t of threads) {
    const session = await ort.InferenceSession.create(join(dir, m, 'model.onnx'),
      { ...sessionOptions(t), graphOptimizationLevel: opt });
    const feeds = {};
    for (const [k, name] of session.inputNames.entries()) {
      const a = readNpy(join(dir, m, 'test_data_set_0', `input_${k}.npy`));
      feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
    }
    for (let i = 0; i < warmup; i++) await session.run(feeds);
    const us = [];
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      us.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    await session.release();
    us.sort((a, b) => a - b);
    result[m][`threads_${t}`] = { median_us: +quantile(us, 0.5).toFixed(2), p10_us: +quantile(us, 0.1).toFixed(2),
      p90_us: +quantile(us, 0.9).toFixed(2), runs };
  }
}
console.log(JSON.stringify({
  peer: `onnxruntime-node ${version}`, node: process.version, provider: 'cpu', graphOptimizationLevel: opt,
  cpu: cpus()[0]?.model, cores: cpus().length, warmup, date: new Date().toISOString(),
  note: 'wall time of session.run on test_data_set_0, inputs prepared once, includes the N-API call',
  models: result,
}, null, 1));
