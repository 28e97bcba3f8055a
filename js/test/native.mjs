// The native x86-64 `rung` CLI, for the answers the wasm engine must equal, and .npy files
// (the CLI's tensor exchange) written and read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export function nativeCli(rung, env) {
  const run = (args) => spawnSync(rung, args, { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  return {
    run,
    // `rung check --error-format json FILE`: the diagnostics it prints on stderr (none: []).
    check(file) {
      const r = run(['check', '--error-format', 'json', file]);
      return r.stderr.trim() ? JSON.parse(r.stderr) : [];
    },
    show(file, rung) {
      const r = run(['show', '--rung', rung, '--error-format', 'json', file]);
      return { status: r.status, text: r.stdout, diagnostics: r.stderr.trim() ? JSON.parse(r.stderr) : [] };
    },
    // `rung plan FILE --json ...`: exit 0 (green, yellow) or 3 (red) with the document on stdout.
    plan(file, args) {
      const r = run(['plan', file, '--json', ...args]);
      if (r.status !== 0 && r.status !== 3) throw new Error(`native rung plan failed (${r.status}): ${r.stderr}`);
      return JSON.parse(r.stdout);
    },
    // `rung run --backend cpu --json --out DIR`: the JSON, the program's prints (stderr) and each output's bytes.
    runCpu(file, argFiles, outDir) {
      const args = ['run', file, '--backend', 'cpu', '--json', '--out', outDir];
      for (const [name, path] of Object.entries(argFiles)) args.push('--arg', `${name}=${path}`);
      const r = run(args);
      if (r.status !== 0) throw new Error(`native rung run failed (${r.status}): ${r.stderr}`);
      const j = JSON.parse(r.stdout);
      const bytes = {};
      for (const o of j.outputs) bytes[o.name] = readNpy(o.file).data;
      // stderr holds the program's prints and, off a terminal, the CLI's progress lines
      // (tools/rung/progress_printer.cpp: "conforming N/M: op", "  [f] for loop: ..."), which are not prints.
      const prints = r.stderr.split(/(?<=\n)/).filter((l) => !/^conforming \d+\/\d+: /.test(l) && !/^  \[[^\]]*\] (for|while) loop/.test(l)).join('');
      return { json: j, prints, bytes };
    },
  };
}

const DESCR = { f32: '<f4', f64: '<f8', i32: '<i4', i64: '<i8' };

export function writeNpy(path, dtype, shape, bytes) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${DESCR[dtype]}', 'fortran_order': False, 'shape': (${dims}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(bytes)]));
}

export function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = b[6];
  const len = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + len;
  return { header: b.toString('latin1', major === 1 ? 10 : 12, start), data: new Uint8Array(b.subarray(start)) };
}
