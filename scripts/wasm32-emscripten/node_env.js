// --pre-js of the wasm32 rung CLI (scripts/wasm32-emscripten.cmake): getenv sees the host's
// environment (RUNG_HOME, RUNG_CPU_THREADS, ...). emscripten's default is a fixed fake one.
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  if (typeof process === 'object' && process.env) Object.assign(ENV, process.env);
});
