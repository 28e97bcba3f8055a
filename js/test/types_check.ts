// index.d.ts held to its use (scripts/test-wasm-js.sh runs `tsc --noEmit --strict` on this
// file): every call of docs/wasm-js.md with the types a caller writes; a wrong field fails.
import { createEngine, EngineError } from '@rung/engine';
import type { Diagnostic, PlanJson, Program, RunEvent, RungEngine, Tensor } from '@rung/engine';

export async function use(): Promise<string> {
  const engine: RungEngine = await createEngine({ worker: false });
  const found: { diagnostics: Diagnostic[] } = await engine.check('module b;');
  const first: string | undefined = found.diagnostics[0]?.labels?.[0]?.span.file;
  const p: Program = await engine.compile({ name: 'w.json', text: '{}', kind: 'workflow' }, { dims: { N: 4 } });
  const text: string = await engine.show(p, 'graph');
  const plan: PlanJson = await engine.plan(p, { device: 'cpu', budget: '1GiB' });
  const verdict: 'green' | 'yellow' | 'red' = plan.verdict.verdict;
  const x: Tensor = { dtype: 'f32', shape: [4, 8], data: new Float32Array(32) };
  const controller = new AbortController();
  let out = '';
  for await (const e of engine.run(p, { x }, { signal: controller.signal, receipts: 'conform', onEvent: (ev: RunEvent) => void ev })) {
    if (e.type === 'progress') out += `${e.phase} ${e.done}/${e.total}`;
    if (e.type === 'result') out += e.outputs['y'].sha3_256 + new Float32Array(e.outputs['y'].data).length;
    if (e.type === 'error') throw new EngineError(e.diagnostics);
  }
  await engine.release(p);
  engine.close();
  return `${first} ${text} ${verdict} ${out}`;
}
