// Serves a built studio (dist/) on 127.0.0.1 only, with the headers threads need
// (cross-origin isolation) and the MIME types the engine's files need: node's twin of `rung studio`
// for work on the app alone (make test-studio uses rung studio). Usage: node scripts/serve.mjs DIR [PORT]
// (PORT 0 picks a free one); it prints "serving http://127.0.0.1:PORT/" when ready.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";

const root = resolve(process.argv[2] ?? "dist");
const port = Number(process.argv[3] ?? 5178);
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
  const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path));
  const headers = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp", "Cache-Control": "no-store" };
  let size = -1;
  try {
    if (file.startsWith(root + sep)) size = statSync(file).isFile() ? statSync(file).size : -1;
  } catch {
    size = -1;
  }
  if (size < 0) {
    res.writeHead(404, { ...headers, "Content-Type": "text/plain" }).end(`not found: ${path}\n`);
    return;
  }
  res.writeHead(200, { ...headers, "Content-Type": types[extname(file)] ?? "application/octet-stream", "Content-Length": size });
  createReadStream(file).pipe(res);
});
server.listen(port, "127.0.0.1", () => {
  const addr = server.address();
  console.log(`serving http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : port}/`);
});
