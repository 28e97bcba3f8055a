// Prepended to emscripten 3.1.6's ES module (js/CMakeLists.txt): under node its loader reads
// files through `require` and `__dirname`, which an ES module does not have. In a browser or
// a Worker `process` is absent and neither is defined (nothing there uses them).
const require = typeof process === 'object' && process.versions && process.versions.node
  ? (await import('node:module')).createRequire(import.meta.url) : undefined;
const __dirname = require ? require('node:path').dirname(require('node:url').fileURLToPath(import.meta.url)) : undefined;
