// Page module for browser_test.mjs (run by browser.mjs's harness): the engine package through
// its Web Worker on examples/mlp.rung and examples/center.workflow.json, cancellation, and a
// broken source's diagnostics. Bytes go back as hex for the node side to compare with native.
import { createEngine } from '/pkg/index.mjs';
import { centerArgs, hex } from '/test/inputs.mjs';

async function collect(iterable) {
  const events = [];
  for await (const e of iterable) events.push(e);
  return events;
}
const text = async (url) => (await fetch(url)).text();

export async function run({ mlpName, centerName }) {
  const engine = await createEngine();  // a browser: in a Web Worker
  const found = await engine.check('module b;\ntier debug;\n\nexport fn main() -> f32 {\n    nope\n}\n');

  const mlp = await engine.compile({ name: mlpName, text: await text('/examples/mlp.rung'), kind: 'rung' });
  const mlpEvents = await collect(engine.run(mlp, {}));
  const mlpResult = mlpEvents.at(-1);

  const center = await engine.compile({ name: centerName, text: await text('/examples/center.workflow.json'), kind: 'workflow' });
  const centerResult = (await collect(engine.run(center, centerArgs(), { transfer: true }))).at(-1);

  // Cancel at the first "step" print: the Worker's shared flag where the page is isolated, else the Worker ends.
  const controller = new AbortController();
  const cancelled = await collect(engine.run(mlp, {}, {
    signal: controller.signal,
    onEvent: (e) => { if (e.type === 'print' && e.text.startsWith('step 0')) controller.abort(); },
  }));
  // The engine still serves afterwards (a restarted Worker needs the program compiled again).
  let after;
  try {
    after = (await engine.show(mlp, 'block')).length > 0 ? 'same program' : 'empty';
  } catch (err) {
    const again = await engine.compile({ name: mlpName, text: await text('/examples/mlp.rung'), kind: 'rung' });
    after = `${err.diagnostics[0].code}, compiled again: ${(await engine.show(again, 'block')).length > 0}`;
  }
  engine.close();

  const outputs = (r) => (r.type === 'result' ? Object.fromEntries(Object.entries(r.outputs).map(([k, t]) => [k, { hex: hex(t.data), sha3_256: t.sha3_256 }])) : r);
  return {
    checkCodes: found.diagnostics.map((d) => d.code),
    mlp: outputs(mlpResult),
    mlpPrints: mlpEvents.filter((e) => e.type === 'print').map((e) => e.text).join(''),
    mlpProgress: mlpEvents.filter((e) => e.type === 'progress').map((e) => `${e.phase} ${e.done}/${e.total}${e.finished ? ' done' : ''}`),
    center: outputs(centerResult),
    cancelled: { last: cancelled.at(-1), sawFinal: cancelled.some((e) => e.type === 'print' && e.text.startsWith('final loss')) },
    after,
  };
}
