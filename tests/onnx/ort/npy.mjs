// .npy (format 1.0-3.0) read and write for onnxruntime-node tensors: C order, little-endian only.
// The dtype names are onnxruntime's Tensor types; bf16 has none (stored as uint16 bits by the converter).
import { readFileSync, writeFileSync } from 'node:fs';

const DESCR_TO_TYPE = {
  '<f4': 'float32', '<f8': 'float64', '<f2': 'float16',
  '|i1': 'int8', '|u1': 'uint8', '<i2': 'int16', '<u2': 'uint16',
  '<i4': 'int32', '<u4': 'uint32', '<i8': 'int64', '<u8': 'uint64', '|b1': 'bool',
};
const TYPE_TO_DESCR = Object.fromEntries(Object.entries(DESCR_TO_TYPE).map(([d, t]) => [t, d]));
const ARRAY = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};

export function readNpy(path) {
  const buf = readFileSync(path);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error(`${path}: bad .npy header ${header.trim()}`);
  if (fortran === 'True') throw new Error(`${path}: Fortran order is not supported`);
  const type = DESCR_TO_TYPE[descr];
  if (!type) throw new Error(`${path}: dtype ${descr} has no onnxruntime tensor type`);
  const dims = shapeText.split(',').map(s => s.trim()).filter(s => s !== '').map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const Arr = ARRAY[type];
  const off = start + hlen;
  if (buf.length - off !== count * Arr.BYTES_PER_ELEMENT) throw new Error(`${path}: ${buf.length - off} data bytes for shape (${dims})`);
  // Copy into a fresh, aligned ArrayBuffer (a Buffer's offset need not be aligned for the typed array).
  const ab = buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + count * Arr.BYTES_PER_ELEMENT);
  return { type, dims, data: new Arr(ab) };
}

export function npyBytes(type, dims, data) {
  const descr = TYPE_TO_DESCR[type];
  if (!descr) throw new Error(`no .npy dtype for tensor type ${type}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // numpy pads the header with spaces so the data starts at a multiple of 64, ending in a newline.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(pre);
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), body]);
}

export function writeNpy(path, type, dims, data) {
  writeFileSync(path, npyBytes(type, dims, data));
}
