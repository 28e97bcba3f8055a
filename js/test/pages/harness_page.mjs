// Page module for the harness's own test (browser_test.mjs): a module's returned value comes
// back, and a served .wasm streams (application/wasm) and names its exports, as a standalone
// `rung build --target wasm` module will need.
export async function run({ n, wasm }) {
  // (module (func (export "twice") (param i32) (result i32) local.get 0 i32.const 2 i32.mul))
  const twice = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 9, 1, 5, 116, 119, 105, 99, 101, 0, 0,
    10, 9, 1, 7, 0, 32, 0, 65, 2, 108, 11]);
  const { instance } = await WebAssembly.instantiate(twice);
  const served = await WebAssembly.compileStreaming(fetch(wasm));
  return { twice: instance.exports.twice(n), exports: WebAssembly.Module.exports(served).map((e) => e.name).filter((e) => e.startsWith('rung_engine_')).sort() };
}
