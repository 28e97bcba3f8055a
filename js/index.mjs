// The rung engine for JavaScript (types: index.d.ts; docs/wasm-js.md). Under node the wasm32
// engine runs in the calling thread; in browsers it runs in a Web Worker (src/worker.mjs) and
// requests and results travel as messages with transferable buffers. Diagnostics are the
// CLI's JSON (`rung check --error-format json`); plans are `rung plan --json`'s document.
import { EngineCore, EngineError, diagnostic } from './src/core.mjs';
import { sourceOf } from './src/sources.mjs';

export { EngineError };

const IN_NODE = typeof process === 'object' && !!process.versions && !!process.versions.node;

// {module, wasm}: where rung_engine.mjs and its .wasm are (default: ./dist/ beside this file);
// worker: run in a Web Worker (default: in browsers, not under node).
export async function createEngine(options = {}) {
  const module = new URL(options.module ?? './dist/rung_engine.mjs', import.meta.url);
  const wasm = new URL(options.wasm ?? module.href.replace(/\.mjs$/, '.wasm'), import.meta.url);
  const useWorker = options.worker ?? !IN_NODE;
  const link = useWorker ? await WorkerLink.open(module, wasm) : await DirectLink.open(module, wasm);
  return new RungEngine(link);
}

// The engine in this thread: calls are synchronous underneath.
class DirectLink {
  static async open(module, wasm) {
    const { default: create } = await import(module.href);
    const settings = {};
    if (IN_NODE && wasm.protocol === 'file:') {
      // emscripten 3.1.6 would `fetch` a file path under node 20: the bytes are read here.
      const { readFile } = await import('node:fs/promises');
      settings.wasmBinary = await readFile(wasm);
    } else {
      settings.locateFile = () => wasm.href;
    }
    return new DirectLink(new EngineCore(await create(settings)));
  }
  constructor(core) {
    this.core = core;
    this.generation = 1;
    this.canCancel = true;
  }
  async request(op, args, onEvent, signal) {
    const c = this.core;
    if (op === 'check') return c.check(args.sources);
    if (op === 'compile') return c.compile(args.source, args.options);
    if (op === 'show') return c.show(args.program, args.rung, args.backend);
    if (op === 'plan') return c.plan(args.program, args.options);
    if (op === 'release') return { ok: c.release(args.program) };
    // A run: the signal is read at every event (the run happens in this thread, so an abort
    // can only come from an event handler).
    return c.run(args.program, args.args, args.options, (event) => {
      onEvent(event);
      return signal ? signal.aborted : false;
    });
  }
  close() {}
}

// The engine in a Web Worker. Cancelling needs the Worker to see a flag while it runs: a
// SharedArrayBuffer where the page is cross-origin isolated; elsewhere the Worker is
// terminated and started again (programs compiled before then must be compiled again).
class WorkerLink {
  static async open(module, wasm) {
    const link = new WorkerLink(module, wasm);
    link.ready = link.start();
    await link.ready;
    return link;
  }
  constructor(module, wasm) {
    this.module = module;
    this.wasm = wasm;
    this.generation = 0;
    this.nextId = 1;
    this.pending = new Map();
    this.canCancel = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true;
  }
  async start() {
    this.worker = new Worker(new URL('./src/worker.mjs', import.meta.url), { type: 'module' });
    this.generation += 1;
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => this.failAll(diagnostic('M0042', `the engine's Worker failed: ${e.message ?? 'unknown error'}`));
    const reply = await this.post('init', { module: this.module.href, wasm: this.wasm.href });
    if (!reply.ok) throw new EngineError(reply.diagnostics);
  }
  receive({ id, event, reply }) {
    const p = this.pending.get(id);
    if (!p) return;
    if (event) return p.onEvent(event);
    this.pending.delete(id);
    p.resolve(reply);
  }
  failAll(d) {
    for (const p of this.pending.values()) p.resolve({ ok: false, diagnostics: [d] });
    this.pending.clear();
  }
  post(op, args, onEvent = () => {}, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, onEvent });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }
  async request(op, args, onEvent, signal, transfer) {
    await this.ready;  // a Worker started again after a cancel loads the module first
    if (op !== 'run') return this.post(op, args);
    let flag = null;
    if (this.canCancel) {
      args = { ...args, cancel: new SharedArrayBuffer(4) };
      flag = new Int32Array(args.cancel);
    }
    const done = this.post(op, args, onEvent, transfer);
    if (!signal) return done;
    const onAbort = () => {
      if (flag) return Atomics.store(flag, 0, 1);
      // No shared memory: the only way to stop the Worker is to end it.
      this.worker.terminate();
      this.failAll(diagnostic('M0012', 'the run was cancelled: the engine Worker was terminated (the page is not cross-origin isolated, so no shared cancel flag)',
        ['programs compiled before this must be compiled again']));
      this.ready = this.start();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await done;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
  close() {
    this.worker.terminate();
    this.failAll(diagnostic('M0042', 'the engine was closed'));
  }
}

class RungEngine {
  constructor(link) {
    this.link = link;
  }

  // The diagnostics of one or more sources (never throws) and, where they are clean, the
  // entries of each: their parameters and results with types.
  async check(doc) {
    const docs = Array.isArray(doc) ? doc : [doc];
    const sources = docs.map((d) => sourceOf(d));
    if (sources.some((s) => s === null))
      return { diagnostics: [diagnostic('M0040', 'engine request: a source is a string, a workflow document or {name, text, kind}')], ports: {} };
    try {
      const reply = await this.link.request('check', { sources });
      return { diagnostics: reply.diagnostics, ports: reply.ports ?? {} };
    } catch (err) {
      return { diagnostics: [diagnostic('Z0001', `check: ${err && err.message ? err.message : String(err)}`)], ports: {} };
    }
  }

  async compile(src, o = {}) {
    const source = sourceOf(src, o.name);
    if (!source) throw new EngineError([diagnostic('M0040', 'engine request: a source is a string, a workflow document or {name, text, kind}')]);
    const reply = await this.link.request('compile', { source, options: { entry: o.entry, tier: o.tier, tolerance: o.tolerance, dims: o.dims } });
    if (!reply.ok) throw new EngineError(reply.diagnostics);
    return {
      handle: reply.program, generation: this.link.generation, module: reply.module, entry: reply.entry, entries: reply.entries,
      tier: reply.tier, tolerance: reply.tolerance, fingerprint: reply.fingerprint, warnings: reply.diagnostics,
    };
  }

  // `rung show --rung RUNG` of the program's source.
  async show(p, rung = 'block', backend) {
    const reply = await this.link.request('show', { program: this.handleOf(p), rung, backend });
    if (!reply.ok) throw new EngineError(reply.diagnostics);
    return reply.text;
  }

  // `rung plan --json`: {device, budget (bytes or "2GiB"), entry, dims, stream, bindingLimit, batch}.
  async plan(p, o = {}) {
    const reply = await this.link.request('plan', { program: this.handleOf(p), options: o });
    if (!reply.ok) throw new EngineError(reply.diagnostics);
    return reply.plan;
  }

  // Runs an entry: yields {type: 'start' | 'progress' | 'print'} events as the run goes, then
  // one {type: 'result', outputs, ...} or {type: 'error', diagnostics} (M0012: cancelled).
  // o: {entry, backend, receipts, signal (AbortSignal), onEvent (called synchronously), transfer}.
  run(p, args, o = {}) {
    const queue = [];
    let wake = null;
    const push = (event) => {
      if (o.onEvent) o.onEvent(event);
      queue.push(event);
      if (wake) wake();
    };
    const handle = this.handleOf(p);
    const transfer = o.transfer ? Object.values(args ?? {}).map((t) => (t.data instanceof ArrayBuffer ? t.data : t.data.buffer)) : [];
    const options = { entry: o.entry, backend: o.backend, receipts: o.receipts };
    const done = this.link.request('run', { program: handle, args, options }, push, o.signal, transfer).then(
      (reply) => {
        const { ok, diagnostics, ...rest } = reply;
        push(ok ? { type: 'result', ...rest, warnings: diagnostics } : { type: 'error', diagnostics });
      },
      (err) => push({ type: 'error', diagnostics: [diagnostic('Z0001', `run: ${err && err.message ? err.message : String(err)}`)] }),
    );
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (queue.length) {
            const event = queue.shift();
            yield event;
            if (event.type === 'result' || event.type === 'error') return;
          }
          await new Promise((resolve) => (wake = resolve));
          wake = null;
        }
      },
      done,
    };
  }

  async release(p) {
    const reply = await this.link.request('release', { program: this.handleOf(p) });
    return reply.ok === true;
  }

  close() {
    this.link.close();
  }

  // A program of this engine, compiled since its Worker last started (M0041 otherwise).
  handleOf(p) {
    if (!p || typeof p.handle !== 'number') throw new EngineError([diagnostic('M0041', 'not a program (compile returns one)')]);
    if (p.generation !== this.link.generation)
      throw new EngineError([diagnostic('M0041', 'this program was compiled before the engine Worker restarted: compile it again')]);
    return p.handle;
  }
}
