// "Lay out": the document laid out by elkjs in a Worker (runLayout.ts). While it runs the
// canvas stays live; after 2.5 s a Cancel button is offered, which stops the Worker and
// applies nothing. The result is one gesture (one undo step).
import { useEffect, useRef, useState } from "react";
import type { WorkflowDoc } from "../doc/model";
import type { Layout } from "../edit/state";
import type { Sizes } from "../layout/elkGraph";
import { CANCEL_AFTER_MS, runLayout } from "../layout/runLayout";

interface Props {
  doc: WorkflowDoc;
  sizes: Sizes;
  disabled: boolean;
  onLaidOut(layout: Layout): void;
}

export function LayoutControl({ doc, sizes, disabled, onLaidOut }: Props) {
  const [running, setRunning] = useState<{ cancel(): void } | null>(null);
  const [offerCancel, setOfferCancel] = useState(false);
  const [status, setStatus] = useState("");
  const current = useRef<{ cancel(): void } | null>(null);
  useEffect(() => () => current.current?.cancel(), []);

  const start = () => {
    const job = runLayout(doc, sizes);
    current.current = job;
    setRunning(job);
    setOfferCancel(false);
    setStatus("laying out…");
    const timer = setTimeout(() => setOfferCancel(true), CANCEL_AFTER_MS);
    void job.done.then((o) => {
      clearTimeout(timer);
      if (current.current !== job) return;
      current.current = null;
      setRunning(null);
      setOfferCancel(false);
      if (o.ok) {
        onLaidOut(o.layout);
        setStatus(`laid out ${Object.keys(o.layout).length} boxes in ${Math.round(o.ms)} ms`);
      } else setStatus(o.message);
    });
  };
  return (
    <span className="layout-control">
      <button id="layout-run" disabled={disabled || running !== null} onClick={start}>
        Lay out
      </button>
      {running && offerCancel && (
        <button id="layout-cancel" onClick={() => running.cancel()}>
          Cancel
        </button>
      )}{" "}
      <span id="layout-status">{status}</span>
    </span>
  );
}
