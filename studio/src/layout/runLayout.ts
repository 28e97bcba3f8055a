// Starts a layout in a Worker of its own: elkjs's API on this thread, its compiled layouter
// (elk-worker.min.js, shipped as a file, untouched by the bundler) in the Worker elkjs starts
// from it. cancel() terminates the Worker: the work stops, nothing is applied. One Worker per
// layout, so a cancelled one cannot hold up the next.
import ELK from "elkjs/lib/elk-api.js";
import elkWorkerUrl from "elkjs/lib/elk-worker.min.js?url";
import type { WorkflowDoc } from "../doc/model";
import type { Layout } from "../edit/state";
import { type Sizes, elkGraph, layoutFromElk } from "./elkGraph";

// After this long the studio offers Cancel (STUDIO.md: Netron's lesson).
export const CANCEL_AFTER_MS = 2500;

export type LayoutOutcome = { ok: true; layout: Layout; ms: number } | { ok: false; cancelled: boolean; message: string };

export function runLayout(doc: WorkflowDoc, sizes: Sizes): { done: Promise<LayoutOutcome>; cancel(): void } {
  const elk = new ELK({ workerUrl: elkWorkerUrl });
  const start = performance.now();
  let settle: (o: LayoutOutcome) => void = () => {};
  const done = new Promise<LayoutOutcome>((ok) => (settle = ok));
  elk.layout(elkGraph(doc, sizes)).then(
    (graph) => {
      elk.terminateWorker();
      settle({ ok: true, layout: layoutFromElk(graph), ms: performance.now() - start });
    },
    (err: unknown) => {
      elk.terminateWorker();
      settle({ ok: false, cancelled: false, message: `the layout failed: ${String(err)}` });
    },
  );
  return {
    done,
    cancel() {
      elk.terminateWorker();
      settle({ ok: false, cancelled: true, message: "layout cancelled" });
    },
  };
}
