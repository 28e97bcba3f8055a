// node run_node.mjs LOADER.mjs MODULE.wasm OUTDIR SEED plain|edges|specials
// Makes the inputs of the module's signature (harness.mjs), writes them to OUTDIR/in/NAME.npy,
// runs the module through its generated loader and writes its outputs to OUTDIR/wasm/NAME.npy.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeInputs, npyBytes, runModule } from './harness.mjs';

const [loaderPath, wasmPath, outDir, seed, mode] = process.argv.slice(2);
const loader = await import(pathToFileURL(resolve(loaderPath)).href);
const inputs = makeInputs(loader.signature, Number(seed), mode);
mkdirSync(`${outDir}/in`, { recursive: true });
mkdirSync(`${outDir}/wasm`, { recursive: true });
for (const port of loader.signature.inputs)
  writeFileSync(`${outDir}/in/${port.name}.npy`, npyBytes(port.dtype, port.shape, inputs[port.name]));
const outputs = await runModule(loader, readFileSync(wasmPath), inputs);
for (const port of loader.signature.outputs)
  writeFileSync(`${outDir}/wasm/${port.name}.npy`, npyBytes(port.dtype, port.shape, outputs[port.name]));

// The loader refuses inputs of the wrong size or type instead of reading past them.
const program = await loader.load(readFileSync(wasmPath));
program.run(inputs);
const first = loader.signature.inputs[0];
const refused = (bad, kind) => {
  try {
    program.run({ ...inputs, [first.name]: bad });
  } catch (e) {
    if (e instanceof kind) return;
    throw e;
  }
  throw new Error(`the loader took a bad ${first.name} without a ${kind.name}`);
};
refused(inputs[first.name].slice(1), RangeError);
refused(first.array === 'Float64Array' ? new Float32Array(inputs[first.name].length) : new Float64Array(inputs[first.name].length), TypeError);
// Running one instance again gives the same outputs (a run never overwrites its inputs).
const again = program.run(inputs);
for (const port of loader.signature.outputs) {
  const a = new Uint8Array(again[port.name].buffer), b = new Uint8Array(outputs[port.name].buffer);
  if (a.length !== b.length || a.some((v, i) => v !== b[i])) throw new Error(`a second run changed ${port.name}`);
}
