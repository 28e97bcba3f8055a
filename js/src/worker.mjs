// The engine inside a Web Worker (browsers): one message per request, {id, op, args}; the
// worker answers {id, event} for each run event and {id, reply} once. Output buffers are
// transferred, not copied. Cancellation reads a shared flag (a SharedArrayBuffer, which only a
// cross-origin-isolated page can make) at every run event.
import { EngineCore, diagnostic } from './core.mjs';

let core = null;

async function init({ module, wasm }) {
  const { default: create } = await import(module);
  core = new EngineCore(await create({ locateFile: () => wasm }));
  return { ok: true };
}

function serve(id, op, args) {
  if (op === 'check') return core.check(args.sources);
  if (op === 'compile') return core.compile(args.source, args.options);
  if (op === 'show') return core.show(args.program, args.rung, args.backend);
  if (op === 'plan') return core.plan(args.program, args.options);
  if (op === 'release') return { ok: core.release(args.program) };
  if (op === 'run') {
    const flag = args.cancel ? new Int32Array(args.cancel) : null;
    return core.run(args.program, args.args, args.options, (event) => {
      self.postMessage({ id, event });
      return flag !== null && Atomics.load(flag, 0) !== 0;
    });
  }
  return { ok: false, diagnostics: [diagnostic('M0040', `engine request: unknown operation \`${op}\``)] };
}

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  let reply;
  try {
    if (op === 'init') reply = await init(args);
    else if (!core) reply = { ok: false, diagnostics: [diagnostic('M0042', 'the engine module is not loaded')] };
    else reply = serve(id, op, args);
  } catch (err) {
    reply = { ok: false, diagnostics: [diagnostic(op === 'init' ? 'M0042' : 'Z0001', `${op}: ${err && err.message ? err.message : String(err)}`)] };
  }
  const transfer = reply.ok && reply.outputs ? Object.values(reply.outputs).map((t) => t.data) : [];
  self.postMessage({ id, reply }, transfer);
};
