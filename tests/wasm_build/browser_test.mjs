// node browser_test.mjs PLAYWRIGHT_NODE_MODULES CHROMIUM MODULE_DIR OUT_DIR SOURCE_DIR NAME...
// Runs the standalone modules MODULE_DIR/NAME.{mjs,wasm} in headless chromium (the generic
// harness js/test/browser.mjs; the module fetched by URL) and writes each one's inputs and
// outputs as .npy (OUT_DIR/NAME/{in,wasm}/PORT.npy), for browser_test.sh to hold against
// `rung run --backend cpu`.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [playwright, chromium, moduleDir, outDir, src, ...names] = process.argv.slice(2);
const { runInBrowser } = await import(pathToFileURL(path.join(src, 'js/test/browser.mjs')).href);
const { npyBytes } = await import(pathToFileURL(path.join(src, 'tests/wasm_build/harness.mjs')).href);

const r = await runInBrowser({
  chromium, playwright,
  mounts: { '/modules/': moduleDir, '/harness/': path.join(src, 'tests/wasm_build') },
  module: '/harness/browser_page.mjs',
  args: { modules: names, seed: 3, mode: 'specials' },
});
if (r.errors.length) throw new Error(`page errors: ${r.errors.join('; ')}`);
for (const name of names) {
  const loader = await import(pathToFileURL(path.join(moduleDir, `${name}.mjs`)).href);
  for (const [kind, ports, values] of [['in', loader.signature.inputs, r.value[name].inputs], ['wasm', loader.signature.outputs, r.value[name].outputs]]) {
    mkdirSync(path.join(outDir, name, kind), { recursive: true });
    for (const port of ports) {
      const bytes = Buffer.from(values[port.name], 'base64');
      writeFileSync(path.join(outDir, name, kind, `${port.name}.npy`), npyBytes(port.dtype, port.shape, new Uint8Array(bytes)));
    }
  }
}
console.log(`chromium ran ${names.length} modules`);
