// Runs in chromium (browser_test.mjs, through js/test/browser.mjs): loads each built module's
// loader and fetches its .wasm by URL, as a web page would, runs it on the harness's seeded
// inputs and returns inputs and outputs as base64 for the cpu backend comparison.
import { makeInputs, runModule } from '/harness/harness.mjs';

const base64 = (a) => {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const pack = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, base64(v)]));

export async function run({ modules, seed, mode }) {
  const results = {};
  for (const name of modules) {
    const loader = await import(`/modules/${name}.mjs`);
    const inputs = makeInputs(loader.signature, seed, mode);
    const outputs = await runModule(loader, new URL(`/modules/${name}.wasm`, location.href), inputs);
    results[name] = { inputs: pack(inputs), outputs: pack(outputs) };
  }
  return results;
}
