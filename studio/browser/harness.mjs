// What the browser test and the performance script share: the server and polling.
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

// Serves APP on a free port of 127.0.0.1: `$RUNG studio` when RUNG is set, else
// scripts/serve.mjs. Resolves to {url, child} once the server prints its URL.
export function startServer(app, rung = process.env.RUNG) {
  const [cmd, args] = rung
    ? [rung, ["studio", "--port", "0", "--app", app]]
    : [process.execPath, [resolve(here, "../scripts/serve.mjs"), app, "0"]];
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok, fail) => {
    let text = "";
    child.stdout.on("data", (d) => {
      text += d;
      const m = /serving (http:\/\/127\.0\.0\.1:[0-9]+\/)/.exec(text);
      if (m) ok({ url: m[1], child });
    });
    child.on("exit", (code) => fail(new Error(`server exited with ${code}`)));
  });
}

// Polls fn until pred holds (or the time is up); returns the last value.
export async function poll(fn, pred, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (pred(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
