// Runs ONNX test cases on onnxruntime-node (the peer) and writes its outputs as .npy:
//   node tests/onnx/ort/run_node_tests.mjs SUITE OUT [--filter REGEX] [--threads N]
// SUITE holds one folder per test (model.onnx, test_data_set_N/input_K.npy from scripts/onnx-node-npy.py).
// Per test OUT/<test>/status.json says ran / refused (ORT declined at load or run) / not attempted
// (an input has no .npy: string, sequence, map or optional values), and when it ran
// OUT/<test>/test_data_set_N/output_K.npy in the model's output order: the layout tests/onnx/judge.py reads.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrt, sessionOptions } from './ort.mjs';
import { readNpy, writeNpy } from './npy.mjs';

function usage(msg) {
  if (msg) console.error(`run_node_tests: ${msg}`);
  console.error('usage: node tests/onnx/ort/run_node_tests.mjs SUITE OUT [--filter REGEX] [--threads N]');
  process.exit(2);
}

const args = process.argv.slice(2);
const pos = [];
let filter = null, threads = 1;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--filter') filter = new RegExp(args[++i] ?? usage('--filter needs a value'));
  else if (args[i] === '--threads') threads = Number(args[++i] ?? usage('--threads needs a value'));
  else if (args[i].startsWith('--')) usage(`unknown flag ${args[i]}`);
  else pos.push(args[i]);
}
if (pos.length !== 2) usage();
const [suite, out] = pos;
if (!Number.isInteger(threads) || threads < 1) usage('--threads wants a positive integer');
if (!existsSync(suite)) usage(`${suite} does not exist (generate it: /usr/bin/python3 scripts/onnx-node-data.py --npy)`);

const { ort, version } = loadOrt();
const tests = readdirSync(suite).filter(t => existsSync(join(suite, t, 'model.onnx'))).filter(t => !filter || filter.test(t)).sort();
if (tests.length === 0) usage(`no test folders with model.onnx in ${suite}`);
if (!tests.some(t => existsSync(join(suite, t, 'test_data_set_0', 'input_0.npy'))))
  usage(`no .npy inputs in ${suite}: convert the .pb files first (/usr/bin/python3 scripts/onnx-node-npy.py)`);

const dataSets = dir => readdirSync(dir).filter(s => /^test_data_set_\d+$/.test(s))
  .sort((a, b) => Number(a.split('_').pop()) - Number(b.split('_').pop()));

async function runTest(name) {
  const dir = join(suite, name);
  const t0 = performance.now();
  let session;
  try {
    session = await ort.InferenceSession.create(join(dir, 'model.onnx'), sessionOptions(threads));
  } catch (e) {
    return { status: 'refused', stage: 'load', reason: String(e.message ?? e).split('\n')[0] };
  }
  try {
    const sets = dataSets(dir);
    // Read every data set first: a missing .npy means the test cannot be fed, whatever ORT could do.
    const feedsPerSet = [];
    for (const s of sets) {
      const feeds = {};
      for (const [k, inName] of session.inputNames.entries()) {
        const npy = join(dir, s, `input_${k}.npy`);
        if (!existsSync(npy)) {
          if (!existsSync(join(dir, s, `input_${k}.pb`))) continue; // an omitted optional input
          return { status: 'not attempted', stage: 'input', reason: `input_${k} (${inName}) has no .npy: not a numeric tensor` };
        }
        const a = readNpy(npy);
        feeds[inName] = new ort.Tensor(a.type, a.data, a.dims);
      }
      feedsPerSet.push([s, feeds]);
    }
    const written = [];
    for (const [s, feeds] of feedsPerSet) {
      let res;
      try {
        res = await session.run(feeds);
      } catch (e) {
        return { status: 'refused', stage: 'run', reason: String(e.message ?? e).split('\n')[0] };
      }
      mkdirSync(join(out, name, s), { recursive: true });
      for (const [k, outName] of session.outputNames.entries()) {
        const v = res[outName];
        if (!v || v.type === undefined || v.type === 'string' || !v.dims) {
          written.push(`${s}/output_${k}: ${v ? (v.type ?? 'non-tensor') : 'absent'}, not written`);
          continue;
        }
        writeNpy(join(out, name, s, `output_${k}.npy`), v.type, v.dims, v.data);
      }
    }
    return { status: 'ran', ms: +(performance.now() - t0).toFixed(3), ...(written.length ? { notes: written } : {}) };
  } finally {
    await session.release();
  }
}

mkdirSync(out, { recursive: true });
const counts = {};
const t0 = performance.now();
for (const name of tests) {
  rmSync(join(out, name), { recursive: true, force: true }); // no stale outputs from an earlier run
  let r;
  try {
    r = await runTest(name);
  } catch (e) {
    r = { status: 'refused', stage: 'harness', reason: String(e.message ?? e).split('\n')[0] };
  }
  mkdirSync(join(out, name), { recursive: true });
  writeFileSync(join(out, name, 'status.json'), JSON.stringify({ peer: `onnxruntime-node ${version}`, ...r }) + '\n');
  counts[r.status] = (counts[r.status] ?? 0) + 1;
}
const secs = ((performance.now() - t0) / 1000).toFixed(1);
writeFileSync(join(out, 'run.json'), JSON.stringify({
  peer: `onnxruntime-node ${version}`, node: process.version, provider: 'cpu', graphOptimizationLevel: 'disabled',
  threads, suite, tests: tests.length, counts, seconds: Number(secs), date: new Date().toISOString(),
}, null, 1) + '\n');
console.log(`run_node_tests: onnxruntime-node ${version}, ${tests.length} tests in ${secs} s: ` +
  Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', '));
