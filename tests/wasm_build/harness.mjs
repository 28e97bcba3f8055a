// Inputs for a generated module and its run, with no host API but WebAssembly: the node
// test (run_node.mjs) and a browser page use this same file.
//   const inputs = makeInputs(loader.signature, seed, 'specials');   // or 'edges', 'plain' 
//   const outputs = await runModule(loader, bytesOrUrl, inputs);

// Values a kernel must get right bit for bit. Edges: signed zeros, subnormals, the smallest
// normals and values one ulp off round numbers. Specials add the infinities, the largest
// finite values and NaNs (the canonical one, and ones with a payload that every output must canonicalise).
const EDGE_F32_BITS = [
  0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x80012345, 0x00800000,
  0x3f800001, 0xbf7fffff, 0x33800000, 0x4b800001, 0x0d800000, 0x8c000001,
];
const SPECIAL_F32_BITS = [0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00001, 0xffc00123, 0x7f7fffff, 0xff7fffff];

// The same classes in binary64.
const EDGE_F64_BITS = [0x0n, 0x8000000000000000n, 0x1n, 0x8000000000000001n, 0x000fffffffffffffn, 0x0010000000000000n,
  0x3ff0000000000001n, 0xbfefffffffffffffn, 0x3ca0000000000000n];
const SPECIAL_F64_BITS = [0x7ff0000000000000n, 0xfff0000000000000n, 0x7ff8000000000000n, 0x7ff4000000000001n,
  0xfff8000000000123n, 0x7fefffffffffffffn];

// A small deterministic generator (xorshift32), so a failure replays from its seed.
function rng(seed) {
  let s = (seed >>> 0) || 0x9e3779b9;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// mode: plain (values in [-2, 2), a few spread over 2^-8 .. 2^8), edges (10% edge values),
// specials (edges and 1% infinities and NaNs: enough to reach every kernel, few enough that
// not every reduction is NaN).
function fillF32(n, next, mode) {
  const bits = new Uint32Array(n);
  const f = new Float32Array(bits.buffer);
  for (let i = 0; i < n; i++) {
    const r = next();
    if (mode === 'specials' && r < 0.01) {
      bits[i] = SPECIAL_F32_BITS[Math.floor(next() * SPECIAL_F32_BITS.length)];
    } else if (mode !== 'plain' && r < 0.11) {
      bits[i] = EDGE_F32_BITS[Math.floor(next() * EDGE_F32_BITS.length)];
    } else {
      const scale = next() < 0.9 ? 1 : Math.pow(2, Math.floor(next() * 17) - 8);
      f[i] = (next() * 4 - 2) * scale;
    }
  }
  return f;
}

function fillF64(n, next, mode) {
  const bits = new BigUint64Array(n);
  const f = new Float64Array(bits.buffer);
  for (let i = 0; i < n; i++) {
    const r = next();
    if (mode === 'specials' && r < 0.01) bits[i] = SPECIAL_F64_BITS[Math.floor(next() * SPECIAL_F64_BITS.length)];
    else if (mode !== 'plain' && r < 0.11) bits[i] = EDGE_F64_BITS[Math.floor(next() * EDGE_F64_BITS.length)];
    else f[i] = (next() * 4 - 2) * (next() < 0.9 ? 1 : Math.pow(2, Math.floor(next() * 17) - 8)) + next() * 2 ** -30;
  }
  return f;
}

export function makeInputs(signature, seed, mode = 'specials') {
  const next = rng(seed);
  const inputs = {};
  for (const port of signature.inputs) {
    const n = port.shape.reduce((a, b) => a * b, 1);
    if (port.dtype === 'f32') inputs[port.name] = fillF32(n, next, mode);
    else if (port.dtype === 'f64') inputs[port.name] = fillF64(n, next, mode);
    else if (port.dtype === 'bool') inputs[port.name] = Uint8Array.from({ length: n }, () => (next() < 0.5 ? 1 : 0));
    else throw new Error(`harness: no generator for ${port.dtype} inputs`);
  }
  return inputs;
}

export async function runModule(loader, source, inputs) {
  const program = await loader.load(source);
  return program.run(inputs);
}

// A .npy (version 1.0) file's bytes, so both sides can be compared by `rung run --arg`.
export function npyBytes(dtype, shape, array) {
  const descr = { f32: '<f4', f64: '<f8', i64: '<i8', i32: '<i4', bool: '|b1', u8: '|u1' }[dtype];
  if (!descr) throw new Error(`harness: no .npy type for ${dtype}`);
  const dims = shape.length === 0 ? '()' : shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${dims}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + array.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), 10 + header.length);
  return out;
}
