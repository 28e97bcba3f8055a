// The engine module's entries wrapped for JavaScript (used directly under node and inside the
// Worker in browsers): requests and replies are JSON, tensors are copied into and out of the
// module's memory. Every call is synchronous; a reply {ok: false} carries the diagnostics.

const DTYPE_BYTES = { f32: 4, f16: 2, bf16: 2, f64: 8, i64: 8, i32: 4, i16: 2, i8: 1, u64: 8, u32: 4, u16: 2, u8: 1, bool: 1 };

export function elementBytes(dtype) {
  return DTYPE_BYTES[dtype];
}

// A diagnostic of this wrapper (bad arguments from the caller), in the CLI's JSON form.
export function diagnostic(code, message, notes = []) {
  return { code, severity: 'error', message, notes };
}

export class EngineError extends Error {
  constructor(diagnostics) {
    super(diagnostics.length ? `${diagnostics[0].code}: ${diagnostics[0].message}` : 'rung engine error');
    this.name = 'EngineError';
    this.diagnostics = diagnostics;
  }
}

export class EngineCore {
  constructor(mod) {
    this.mod = mod;
  }

  // Calls an entry with the string `request` (copied into the module's memory) and parses its reply.
  call(name, handle, request) {
    const m = this.mod;
    const text = JSON.stringify(request);
    const n = m.lengthBytesUTF8(text) + 1;
    const ptr = m._malloc(n);
    m.stringToUTF8(text, ptr, n);
    try {
      const out = handle === null ? m[name](ptr) : m[name](handle, ptr);
      return JSON.parse(m.UTF8ToString(out));
    } finally {
      m._free(ptr);
    }
  }

  check(sources) {
    return this.call('_rung_engine_check', null, { sources });
  }
  compile(source, o = {}) {
    return this.call('_rung_engine_compile', null, { source, entry: o.entry, tier: o.tier, tolerance: o.tolerance, dims: dimList(o.dims) });
  }
  show(program, rung, backend) {
    return this.call('_rung_engine_show', program, { rung, backend });
  }
  plan(program, o = {}) {
    const budget = o.budget === undefined ? undefined : String(o.budget);
    return this.call('_rung_engine_plan', program, {
      device: o.device ?? 'cpu', budget, entry: o.entry, dims: dimList(o.dims), stream: o.stream === undefined ? undefined : String(o.stream),
      binding_limit: o.bindingLimit === undefined ? undefined : String(o.bindingLimit), batch: o.batch,
    });
  }
  release(handle) {
    return this.mod._rung_engine_release(handle) === 1;
  }

  // Runs `program` with `args` ({name: Tensor}); onEvent(event) is called for each progress and
  // print event and returns true to cancel. The reply's outputs carry their own ArrayBuffers.
  run(program, args, o, onEvent) {
    const m = this.mod;
    const inputs = [];
    const held = [];
    try {
      for (const [name, t] of Object.entries(args ?? {})) {
        const bad = tensorProblem(name, t);
        if (bad) return { ok: false, diagnostics: [bad] };
        const bytes = new Uint8Array(t.data instanceof ArrayBuffer ? t.data : t.data.buffer, t.data.byteOffset ?? 0, t.data.byteLength);
        const ptr = m._malloc(Math.max(1, bytes.byteLength));
        held.push(ptr);
        m.HEAPU8.set(bytes, ptr);
        inputs.push({ name, dtype: t.dtype, shape: t.shape, ptr, bytes: bytes.byteLength });
      }
      // A handler that throws must not unwind through the engine's C++ frames: the run is
      // cancelled instead, and the reply says why (M0043).
      let thrown = null;
      m.onRungEvent = (text) => {
        try {
          return onEvent ? onEvent(JSON.parse(text)) === true : false;
        } catch (err) {
          thrown = thrown ?? err;
          return true;
        }
      };
      const reply = this.call('_rung_engine_run', program, { entry: o?.entry, backend: o?.backend ?? 'cpu', receipts: o?.receipts ?? 'conform', inputs });
      if (thrown) {
        if (reply.ok) this.release(reply.result);
        return { ok: false, diagnostics: [diagnostic('M0043', `the run was stopped: an event handler threw: ${thrown && thrown.message ? thrown.message : String(thrown)}`)] };
      }
      if (!reply.ok) return reply;
      const outputs = {};
      for (const out of reply.outputs) {
        const data = m.HEAPU8.slice(out.ptr, out.ptr + out.bytes).buffer;
        outputs[out.name] = { dtype: out.dtype, shape: out.shape, data, sha3_256: out.sha3_256 };
      }
      this.release(reply.result);
      const { outputs: _, result: __, ...rest } = reply;
      return { ...rest, outputs };
    } finally {
      m.onRungEvent = undefined;
      for (const ptr of held) m._free(ptr);
    }
  }
}

function dimList(dims) {
  if (!dims) return undefined;
  return Array.isArray(dims) ? dims : Object.entries(dims).map(([k, v]) => `${k}=${v}`);
}

// What is wrong with an argument before it reaches the engine (M0007 for bytes of the wrong length).
function tensorProblem(name, t) {
  if (!t || typeof t.dtype !== 'string' || !Array.isArray(t.shape) || !(t.data instanceof ArrayBuffer || ArrayBuffer.isView(t.data)))
    return diagnostic('M0040', `engine request: argument \`${name}\` is not a Tensor {dtype, shape, data: ArrayBuffer}`);
  const size = elementBytes(t.dtype);
  if (size === undefined) return diagnostic('M0040', `engine request: argument \`${name}\` has an unknown dtype \`${t.dtype}\``);
  const want = t.shape.reduce((a, b) => a * b, 1) * size;
  if (want !== t.data.byteLength)
    return diagnostic('M0007', `argument \`${name}\`: ${t.data.byteLength} bytes given, ${t.dtype}[${t.shape.join(', ')}] needs ${want}`);
  return null;
}
