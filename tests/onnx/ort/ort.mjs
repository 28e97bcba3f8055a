// onnxruntime-node from build-deps/onnxruntime (scripts/setup-npm.sh), or from RUNG_ORT_DIR;
// sessions on the CPU provider with graph optimisations off, so ORT runs the graph as written.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function loadOrt() {
  const dir = resolve(process.env.RUNG_ORT_DIR || join(root, 'build-deps/onnxruntime'));
  const pkg = join(dir, 'node_modules/onnxruntime-node/package.json');
  if (!existsSync(pkg)) {
    console.error(`onnxruntime-node is not installed in ${dir}: run scripts/setup-npm.sh ` +
      '(it installs onnxruntime-node 1.30.0 with ONNXRUNTIME_NODE_INSTALL=skip), or set RUNG_ORT_DIR');
    process.exit(2);
  }
  const ort = createRequire(pkg)('onnxruntime-node');
  ort.env.logLevel = 'error';
  return { ort, version: JSON.parse(readFileSync(pkg, 'utf8')).version };
}

export function sessionOptions(threads) {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  };
}
