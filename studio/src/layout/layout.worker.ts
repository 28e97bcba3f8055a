// The Worker that lays a document out (elkjs): the page sends ELK's input graph and gets the
// positioned graph back, so a 1,000-node layout never blocks the canvas. Cancelling is
// terminating this Worker (runLayout.ts).
import ELK from "elkjs/lib/elk.bundled.js";
import type { ElkNode } from "elkjs/lib/elk-api";

// The Worker's global scope, typed without the WebWorker lib (the app is compiled with DOM's).
const scope = self as unknown as { onmessage: (e: MessageEvent<ElkNode>) => void; postMessage(m: unknown): void };
const elk = new ELK();
scope.onmessage = (e) => {
  elk.layout(e.data).then(
    (r) => scope.postMessage({ ok: true, graph: r }),
    (err: unknown) => scope.postMessage({ ok: false, message: String(err) }),
  );
};
