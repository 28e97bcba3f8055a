// Deterministic inputs shared by the node and browser tests: f32 values from a fixed LCG, with
// full mantissas (not round numbers), so a wrong rounding anywhere changes output bits.
export function lcgF32(count, seed) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 4294967296) * 4 - 2;
  }
  return out;
}

// The arguments of examples/center.workflow.json: x f32[rows, 8], w f32[8, 4].
export function centerArgs(rows = 16) {
  return {
    x: { dtype: 'f32', shape: [rows, 8], data: lcgF32(rows * 8, 7).buffer },
    w: { dtype: 'f32', shape: [8, 4], data: lcgF32(8 * 4, 8).buffer },
  };
}

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}
