// The JS face of the wasm engine under node, held to the native x86-64 CLI
// (scripts/test-wasm-js.sh runs it): diagnostics equal to `rung check --error-format json`,
// every rung's text equal to `rung show`, the plan equal to `rung plan --json`, outputs
// bit-identical to `rung run --backend cpu`, progress and print events, cancellation, and the
// coded refusals of bad requests.
// Usage: node node_test.mjs NATIVE_RUNG PACKAGE_DIR REPO_ROOT TMP_DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { centerArgs, hex } from './inputs.mjs';
import { nativeCli, writeNpy } from './native.mjs';

const [rungBin, pkg, root, tmp] = process.argv.slice(2);
const { createEngine } = await import(pathToFileURL(path.join(pkg, 'index.mjs')).href);
const native = nativeCli(rungBin, { RUNG_HOME: path.join(tmp, 'native-home') });

let failed = 0;
async function test(name, body) {
  const t0 = Date.now();
  try {
    await body();
    console.log(`PASS ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL ${name}: ${err.stack ?? err}`);
  }
}
// Equal bytes, or the first byte that differs named.
function assertSameBytes(got, want, what) {
  const a = Buffer.from(got);
  const b = Buffer.from(want);
  if (a.equals(b)) return;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) ++i;
  assert.fail(`${what}: ${a.length} vs ${b.length} bytes, first difference at byte ${i} (${hex(a.subarray(i, i + 8))} vs ${hex(b.subarray(i, i + 8))})`);
}
async function collect(iterable) {
  const events = [];
  for await (const e of iterable) events.push(e);
  return events;
}

const engine = await createEngine();
const mlpFile = path.join(root, 'examples/mlp.rung');
const centerFile = path.join(root, 'examples/center.workflow.json');
const mlpText = fs.readFileSync(mlpFile, 'utf8');
const centerDoc = JSON.parse(fs.readFileSync(centerFile, 'utf8'));
// Names as the CLI was given the files, so that diagnostics and texts name the same file.
const mlp = await engine.compile({ name: mlpFile, text: mlpText, kind: 'rung' });
const center = await engine.compile({ name: centerFile, text: JSON.stringify(centerDoc), kind: 'workflow' }, { dims: { N: 16 } });

await test('compile: mlp.rung and center.workflow.json', async () => {
  assert.equal(mlp.entry, 'train');
  assert.equal(mlp.tier, 'prod');
  assert.equal(center.entry, 'center_and_project');
  assert.deepEqual(center.entries[0].params.map((p) => p.type), ['f32[N, 8]', 'f32[8, 4]']);
});

// Broken sources: a syntax error, an unknown name, a type error, and a workflow edge to a node that is not there.
const broken = {
  'syntax.rung': 'module s;\ntier debug;\n\nexport fn f(x: f32[4]) -> f32[4] {\n    x +\n}\n',
  'unknown_name.rung': 'module b;\ntier debug;\n\nexport fn main() -> f32 {\n    nope\n}\n',
  'type_error.rung': 'module t;\ntier debug;\n\nexport fn f(x: f32[4], y: f32[5]) -> f32[4] {\n    x + y\n}\n',
  'bad_edge.workflow.json': JSON.stringify({ ...centerDoc, edges: [...centerDoc.edges, { from: 'x', to: 'nowhere.a' }] }, null, 2),
};
for (const [name, text] of Object.entries(broken)) {
  await test(`check ${name}: the diagnostics of native rung check --error-format json`, async () => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    const kind = name.endsWith('.json') ? 'workflow' : 'rung';
    const got = await engine.check({ name: file, text, kind });
    const want = native.check(file);
    assert.ok(want.length > 0, `native check found nothing in ${name}`);
    assert.deepEqual(got.diagnostics, want);
  });
}
await test('check of clean sources: no diagnostics, their entries as ports', async () => {
  const got = await engine.check([{ name: mlpFile, text: mlpText, kind: 'rung' }, centerDoc]);
  assert.deepEqual(got.diagnostics, []);
  assert.deepEqual(native.check(mlpFile), []);
  assert.ok(got.ports[mlpFile].some((e) => e.name === 'train' && e.exported));
  assert.equal(got.ports['center_and_project.json'][0].params[0].type, 'f32[N, 8]');
});
await test('check never throws: a value that is no source is M0040', async () => {
  const got = await engine.check(42);
  assert.equal(got.diagnostics[0].code, 'M0040');
});

for (const [label, file, program] of [['mlp', mlpFile, mlp], ['center', centerFile, center]]) {
  for (const rung of ['block', 'graph', 'plan']) {
    await test(`show --rung ${rung} ${label}: the text (or the diagnostics) of native rung show`, async () => {
      const want = native.show(file, rung);
      if (want.status === 0) assert.equal(await engine.show(program, rung), want.text);
      else await assert.rejects(engine.show(program, rung), (err) => (assert.deepEqual(err.diagnostics, want.diagnostics), true));
    });
  }
  await test(`show --rung kernel ${label}: refused with native's code (no generated kernels for cpu)`, async () => {
    const want = native.show(file, 'kernel');
    await assert.rejects(engine.show(program, 'kernel'), (err) => err.diagnostics[0].code === want.diagnostics[0].code);
  });
}

await test('plan mlp --device cpu --budget 1GiB: the document of native rung plan --json', async () => {
  assert.deepEqual(await engine.plan(mlp, { device: 'cpu', budget: '1GiB' }), native.plan(mlpFile, ['--device', 'cpu', '--budget', '1GiB']));
});
await test('plan center --dim N=16 --budget 600 (red): the document of native rung plan --json', async () => {
  const got = await engine.plan(center, { device: 'cpu', budget: 600 });
  assert.equal(got.verdict.verdict, 'red');
  assert.deepEqual(got, native.plan(centerFile, ['--device', 'cpu', '--budget', '600', '--dim', 'N=16']));
});

const mlpNative = native.runCpu(mlpFile, {}, path.join(tmp, 'native-mlp'));
await test('run mlp (train): output bits, hash and prints of native rung run --backend cpu; progress events', async () => {
  const events = await collect(engine.run(mlp, {}, { backend: 'cpu' }));
  const result = events.at(-1);
  assert.equal(result.type, 'result', JSON.stringify(result.diagnostics));
  assert.equal(result.fingerprint, mlpNative.json.fingerprint);
  const out = result.outputs.result;
  assertSameBytes(out.data, mlpNative.bytes.result, 'output result');
  assert.equal(out.sha3_256, mlpNative.json.outputs[0].sha3_256);
  assert.equal(events.filter((e) => e.type === 'print').map((e) => e.text).join(''), mlpNative.prints);
  assert.equal(result.record.entry, 'train');
  assert.ok(JSON.stringify(result.record).includes(mlpNative.json.outputs[0].sha3_256), 'the record names the output hash');
  const progress = events.filter((e) => e.type === 'progress');
  assert.ok(progress.some((e) => e.phase === '[train] for loop' && e.total === 200 && e.done > 0), 'no progress of the training loop');
  assert.ok(progress.some((e) => e.phase === '[train] for loop' && e.finished && e.done === 200), 'no final progress event of the loop');
});

for (const rows of [16, 600000]) {
await test(`run center.workflow.json, N=${rows}: output bits of native rung run --backend cpu${rows > 16 ? ' (29 MB in and out: the memory grows past its first 16 MiB)' : ''}`, async () => {
  const args = centerArgs(rows);
  const files = {};
  for (const [name, t] of Object.entries(args)) {
    files[name] = path.join(tmp, `center-${rows}-${name}.npy`);
    writeNpy(files[name], t.dtype, t.shape, new Uint8Array(t.data));
  }
  const want = native.runCpu(centerFile, files, path.join(tmp, `native-center-${rows}`));
  const events = await collect(engine.run(center, args));
  const result = events.at(-1);
  assert.equal(result.type, 'result', JSON.stringify(result.diagnostics));
  for (const o of want.json.outputs) {
    assertSameBytes(result.outputs[o.name].data, want.bytes[o.name], `output ${o.name}`);
    assert.equal(result.outputs[o.name].sha3_256, o.sha3_256);
  }
});
}

await test('cancellation: an abort at the first print stops the run with M0012 before the loop ends', async () => {
  const controller = new AbortController();
  const events = await collect(engine.run(mlp, {}, {
    signal: controller.signal,
    onEvent: (e) => { if (e.type === 'print' && e.text.startsWith('step 0')) controller.abort(); },
  }));
  const last = events.at(-1);
  assert.equal(last.type, 'error');
  assert.equal(last.diagnostics[0].code, 'M0012');
  assert.ok(!events.some((e) => e.type === 'print' && e.text.startsWith('step 50')), 'the run went on after the abort');
});

await test('an onEvent handler that throws stops the run with M0043 (the engine serves on)', async () => {
  const events = await collect(engine.run(mlp, {}, { onEvent: (e) => { if (e.type === 'print') throw new Error('handler bug'); } }));
  const last = events.at(-1);
  assert.equal(last.type, 'error');
  assert.equal(last.diagnostics[0].code, 'M0043');
  assert.match(last.diagnostics[0].message, /handler bug/);
  assert.ok((await engine.show(mlp, 'block')).length > 0);
});

await test('bad requests are coded diagnostics: wrong byte length M0007, missing input M0002, released program M0041, no tier E2301, plan without budget L0004', async () => {
  const args = centerArgs();
  const short = { ...args, x: { ...args.x, data: args.x.data.slice(4) } };
  const e1 = (await collect(engine.run(center, short))).at(-1);
  assert.equal(e1.type, 'error');
  assert.equal(e1.diagnostics[0].code, 'M0007');
  const e2 = (await collect(engine.run(center, { x: args.x }))).at(-1);
  assert.equal(e2.type, 'error');
  assert.equal(e2.diagnostics[0].code, 'M0002');
  const p = await engine.compile(mlpText);
  assert.equal(await engine.release(p), true);
  await assert.rejects(engine.show(p, 'block'), (err) => err.diagnostics[0].code === 'M0041');
  await assert.rejects(engine.compile('module x;\nexport fn f() -> f32 { 1.0 }\n'), (err) => err.diagnostics[0].code === 'E2301');  // no tier
  await assert.rejects(engine.plan(mlp, { device: 'cpu' }), (err) => err.diagnostics[0].code === 'L0004');
});

// docs/wasm-js.md's example, run as written against the staged package.
await test('docs/wasm-js.md: its js example runs', async () => {
  const doc = fs.readFileSync(path.join(root, 'docs/wasm-js.md'), 'utf8');
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length > 0, 'no js block in docs/wasm-js.md');
  for (const [i, code] of blocks.entries()) {
    const file = path.join(pkg, '..', '..', '..', `doc_example_${i}.mjs`);  // beside node_modules/@rung/engine
    fs.writeFileSync(file, code);
    const r = await import(pathToFileURL(file).href);
    assert.ok(r, `block ${i}`);
  }
});

engine.close();
console.log(failed === 0 ? 'node: all passed' : `node: ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
