// runInBrowser (browser.mjs) from a shell, for any module: prints what its `run(args)` returned
// as JSON (exit 1 when the page failed). For example, a standalone `rung build --target wasm`
// module with a page module beside it that loads prog.mjs and returns its outputs as hex:
//   node js/test/run_in_browser.mjs --playwright build-wasm/js-test/node_modules \
//     --mount /prog/=out --module /prog/page.mjs --args '{"n": 4}' [--isolate] [--chromium PATH]
import path from 'node:path';

import { runInBrowser } from './browser.mjs';

const o = { mounts: {}, args: {}, isolate: false, chromium: '/usr/bin/chromium' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--isolate') o.isolate = true;
  else if (a === '--mount') {
    const [prefix, dir] = argv[++i].split('=');
    o.mounts[prefix] = path.resolve(dir);
  } else if (a === '--args') o.args = JSON.parse(argv[++i]);
  else if (a === '--module') o.module = argv[++i];
  else if (a === '--playwright') o.playwright = path.resolve(argv[++i]);
  else if (a === '--chromium') o.chromium = argv[++i];
  else {
    console.error(`run_in_browser: unknown option ${a}`);
    process.exit(2);
  }
}
if (!o.module || !o.playwright) {
  console.error('run_in_browser: --module URL_PATH and --playwright NODE_MODULES are required');
  process.exit(2);
}
try {
  const r = await runInBrowser(o);
  console.log(JSON.stringify({ value: r.value, crossOriginIsolated: r.crossOriginIsolated, console: r.console, errors: r.errors }, null, 2));
} catch (err) {
  console.error(String(err.stack ?? err));
  process.exit(1);
}
