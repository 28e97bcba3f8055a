// The generic browser harness: serves folders (serve.mjs), opens a page in headless chromium
// through playwright-core (the system's browser: no download) that imports ANY module and
// awaits its `run(args)`, and returns what it returned (JSON-serialisable: bytes as hex or
// base64), with the page's console lines and errors. Any module can be tested this way: the
// engine package through its Worker, or a standalone `rung build --target wasm` module.
import { createRequire } from 'node:module';
import path from 'node:path';

import { serve } from './serve.mjs';

// {chromium: executable, playwright: node_modules dir, mounts, module: URL path of the page
// module, args, isolate (COOP/COEP), timeoutMs} -> {value, crossOriginIsolated, console, errors}.
export async function runInBrowser({ chromium, playwright, mounts, module, args = {}, isolate = false, timeoutMs = 300000 }) {
  const { chromium: launcher } = createRequire(path.join(playwright, 'index.js'))('playwright-core');
  const page_html = `<!doctype html><meta charset="utf-8"><title>rung browser harness</title>
<script type="module">
window.__rung = undefined;
try {
  const m = await import(${JSON.stringify(module)});
  const value = await m.run(${JSON.stringify(args)});
  window.__rung = { ok: true, value, crossOriginIsolated: globalThis.crossOriginIsolated === true };
} catch (e) {
  window.__rung = { ok: false, error: String(e && e.stack ? e.stack : e), crossOriginIsolated: globalThis.crossOriginIsolated === true };
}
</script>`;
  const server = await serve({ mounts, isolate, routes: { '/__harness.html': { type: 'text/html', body: page_html }, '/favicon.ico': { type: 'image/x-icon', body: '' } } });
  const browser = await launcher.launch({ executablePath: chromium, args: ['--no-sandbox'] });
  const lines = [];
  const errors = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}/__harness.html`);
    await page.waitForFunction(() => window.__rung !== undefined, null, { timeout: timeoutMs, polling: 100 });
    const r = await page.evaluate(() => window.__rung);
    if (!r.ok) throw new Error(`page module ${module} failed: ${r.error}\nconsole:\n${lines.join('\n')}`);
    return { value: r.value, crossOriginIsolated: r.crossOriginIsolated, console: lines, errors };
  } finally {
    await browser.close();
    await server.close();
  }
}
