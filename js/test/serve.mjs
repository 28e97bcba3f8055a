// A tiny static http server for browser tests: folders mounted at URL prefixes, the MIME types
// module scripts and wasm need, and (isolate) the COOP/COEP headers that make a page
// cross-origin isolated (SharedArrayBuffer, threads). Extra routes answer generated text.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.json': 'application/json', '.rung': 'text/plain', '.txt': 'text/plain', '.npy': 'application/octet-stream' };

// mounts: {'/pkg/': '/abs/dir', ...}; routes: {'/page.html': {type, body}}. Resolves to {url, close}.
export function serve({ mounts = {}, routes = {}, isolate = false }) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const headers = isolate ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
    const route = routes[url.pathname];
    if (route) {
      res.writeHead(200, { ...headers, 'Content-Type': route.type });
      return res.end(route.body);
    }
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const file = path.resolve(dir, decodeURIComponent(url.pathname.slice(prefix.length)));
      if (!file.startsWith(path.resolve(dir) + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) break;
      res.writeHead(200, { ...headers, 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      return fs.createReadStream(file).pipe(res);
    }
    res.writeHead(404, headers);
    res.end('not found');
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }));
  });
}
