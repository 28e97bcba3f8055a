// --pre-js of the wasm32 rung CLI (scripts/wasm32-emscripten.cmake), for node:
//  * getenv sees the host's environment (RUNG_HOME, RUNG_CPU_THREADS, ...); emscripten's
//    default is a fixed fake one;
//  * the module is read from beside this script: node 20 has `fetch`, and emscripten 3.1.6
//    would fetch a file path (ERR_INVALID_URL) unless node runs with --no-experimental-fetch.
if (typeof process === 'object' && typeof require === 'function' && typeof __filename === 'string') {
  Module['wasmBinary'] = Module['wasmBinary'] || require('fs').readFileSync(__filename.replace(/\.js$/, '.wasm'));
}
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  if (typeof process === 'object' && process.env) Object.assign(ENV, process.env);
});
