// Ctrl+F: one box that finds nodes of the drawing (select and centre) and ops of the
// catalogue (add one). Enter takes the first hit; the arrow keys are not needed to reach it.
import { useMemo, useState } from "react";
import type { Catalogue } from "../catalogue/catalogue";
import type { WorkflowDoc } from "../doc/model";

interface Props {
  doc: WorkflowDoc;
  catalogue: Catalogue;
  onAddOp(op: string): void;
  onSelectNode(id: string): void;
  onClose(): void;
}

export function Find({ doc, catalogue, onAddOp, onSelectNode, onClose }: Props) {
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const nodes = useMemo(() => (q ? doc.nodes.filter((n) => n.id.toLowerCase().includes(q) || n.op.toLowerCase().includes(q)).slice(0, 8) : []), [doc, q]);
  const ops = useMemo(() => catalogue.search(q).slice(0, 12), [catalogue, q]);
  const first = () => {
    const exact = ops.find((o) => o.name === q);
    if (exact) onAddOp(exact.name);
    else if (nodes[0]) onSelectNode(nodes[0].id);
    else if (ops[0]) onAddOp(ops[0].name);
  };
  return (
    <div id="find" className="find" role="dialog" aria-label="find nodes and ops">
      <input
        id="find-input"
        autoFocus
        placeholder="find a node, or an op to add"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Enter") first();
          if (e.key === "Escape") onClose();
        }}
      />
      {nodes.length > 0 && <div className="find-head">nodes</div>}
      {nodes.map((n) => (
        <button key={`n-${n.id}`} className="find-hit" data-find-node={n.id} onClick={() => onSelectNode(n.id)}>
          {n.id} <small>{n.op}</small>
        </button>
      ))}
      <div className="find-head">add an op</div>
      {ops.map((o) => (
        <button key={`o-${o.name}`} className="find-hit" data-find-op={o.name} title={o.signature} onClick={() => onAddOp(o.name)}>
          {o.name} <small>{o.summary}</small>
        </button>
      ))}
      {ops.length === 0 && nodes.length === 0 && <div className="find-none">nothing matches “{query}”</div>}
    </div>
  );
}
