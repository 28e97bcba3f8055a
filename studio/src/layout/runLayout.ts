// Starts a layout in its own Worker; cancel() terminates the Worker (the work stops, nothing
// is applied). One Worker per layout: a cancelled one cannot hold up the next.
import type { WorkflowDoc } from "../doc/model";
import type { Layout } from "../edit/state";
import { type Sizes, elkGraph, layoutFromElk } from "./elkGraph";

// After this long the studio offers Cancel (STUDIO.md: Netron's lesson).
export const CANCEL_AFTER_MS = 2500;

export type LayoutOutcome = { ok: true; layout: Layout; ms: number } | { ok: false; cancelled: boolean; message: string };

export function runLayout(doc: WorkflowDoc, sizes: Sizes): { done: Promise<LayoutOutcome>; cancel(): void } {
  const worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
  const start = performance.now();
  let settle: (o: LayoutOutcome) => void = () => {};
  const done = new Promise<LayoutOutcome>((ok) => (settle = ok));
  worker.onmessage = (e: MessageEvent<{ ok: boolean; graph?: Parameters<typeof layoutFromElk>[0]; message?: string }>) => {
    worker.terminate();
    if (e.data.ok && e.data.graph) settle({ ok: true, layout: layoutFromElk(e.data.graph), ms: performance.now() - start });
    else settle({ ok: false, cancelled: false, message: e.data.message ?? "the layout failed" });
  };
  worker.onerror = (e) => {
    worker.terminate();
    settle({ ok: false, cancelled: false, message: `the layout Worker failed: ${e.message}` });
  };
  worker.postMessage(elkGraph(doc, sizes));
  return {
    done,
    cancel() {
      worker.terminate();
      settle({ ok: false, cancelled: true, message: "layout cancelled" });
    },
  };
}
