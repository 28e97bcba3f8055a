// The engine package in Debian's chromium through its Web Worker (scripts/test-wasm-js.sh runs
// it): examples/mlp.rung and examples/center.workflow.json give native `rung run --backend cpu`'s
// bytes, on a cross-origin-isolated page (COOP/COEP) and on a plain one; cancellation ends the
// run with M0012 either way (a shared flag, or the Worker terminated and restarted), before the
// training loop ends. The abort reaches the Worker as a message: it lands some events after
// the print that asked for it, so the test asks only that the loop did not finish.
// Usage: node browser_test.mjs NATIVE_RUNG PACKAGE_DIR REPO_ROOT TMP_DIR CHROMIUM PLAYWRIGHT_NODE_MODULES
import assert from 'node:assert/strict';
import path from 'node:path';

import { runInBrowser } from './browser.mjs';
import { centerArgs } from './inputs.mjs';
import { nativeCli, writeNpy } from './native.mjs';

const [rungBin, pkg, root, tmp, chromium, playwright] = process.argv.slice(2);
const native = nativeCli(rungBin, { RUNG_HOME: path.join(tmp, 'native-home') });
const mlpFile = path.join(root, 'examples/mlp.rung');
const centerFile = path.join(root, 'examples/center.workflow.json');
const hexOf = (bytes) => Buffer.from(bytes).toString('hex');

const mlpNative = native.runCpu(mlpFile, {}, path.join(tmp, 'browser-native-mlp'));
const files = {};
for (const [name, t] of Object.entries(centerArgs())) {
  files[name] = path.join(tmp, `browser-center-${name}.npy`);
  writeNpy(files[name], t.dtype, t.shape, new Uint8Array(t.data));
}
const centerNative = native.runCpu(centerFile, files, path.join(tmp, 'browser-native-center'));

let failed = 0;
for (const isolate of [true, false]) {
  const label = isolate ? 'cross-origin isolated' : 'not isolated';
  const t0 = Date.now();
  try {
    const r = await runInBrowser({
      chromium, playwright, isolate,
      mounts: { '/pkg/': pkg, '/test/': path.join(root, 'js/test'), '/examples/': path.join(root, 'examples') },
      module: '/test/pages/engine_page.mjs',
      args: { mlpName: mlpFile, centerName: centerFile },
    });
    const v = r.value;
    assert.equal(r.crossOriginIsolated, isolate);
    assert.deepEqual(v.checkCodes, ['E2001']);
    assert.equal(v.mlp.result.hex, hexOf(mlpNative.bytes.result), 'mlp output bytes');
    assert.equal(v.mlp.result.sha3_256, mlpNative.json.outputs[0].sha3_256);
    assert.equal(v.mlpPrints, mlpNative.prints);
    assert.ok(v.mlpProgress.some((p) => p.startsWith('[train] for loop') && p.endsWith('done')), `progress: ${v.mlpProgress}`);
    for (const o of centerNative.json.outputs) assert.equal(v.center[o.name].hex, hexOf(centerNative.bytes[o.name]), `center output ${o.name}`);
    assert.equal(v.cancelled.last.type, 'error');
    assert.equal(v.cancelled.last.diagnostics[0].code, 'M0012');
    assert.equal(v.cancelled.sawFinal, false, 'the run went on to its end after the abort');
    assert.equal(v.after, isolate ? 'same program' : 'M0041, compiled again: true');
    console.log(`PASS chromium (${label}): mlp and center bytes equal native, progress seen, cancel M0012, then: ${v.after} (${Date.now() - t0} ms)`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL chromium (${label}): ${err.stack ?? err}`);
  }
}
try {
  const r = await runInBrowser({ chromium, playwright, mounts: { '/pkg/': pkg, '/test/': path.join(root, 'js/test') },
    module: '/test/pages/harness_page.mjs', args: { n: 21, wasm: '/pkg/dist/rung_engine.wasm' } });
  assert.deepEqual(r.value, { twice: 42, exports: ['rung_engine_check', 'rung_engine_compile', 'rung_engine_plan', 'rung_engine_release', 'rung_engine_run', 'rung_engine_show'] });
  console.log('PASS chromium harness: a page module\'s value returned; a served .wasm streams with its exports');
} catch (err) {
  failed += 1;
  console.log(`FAIL chromium harness: ${err.stack ?? err}`);
}
console.log(failed === 0 ? 'chromium: all passed' : `chromium: ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
