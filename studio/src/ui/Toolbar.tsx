// The document's header fields (name, tier, tolerance), adding inputs and outputs, undo/redo,
// share and save. No tier is W0009 plus this control: the studio never picks one.
import { useState } from "react";
import { TIERS, TOLERANCES, type WorkflowDoc } from "../doc/model";

interface Props {
  doc: WorkflowDoc;
  readOnly: boolean;
  undoLabel: string | undefined;
  redoLabel: string | undefined;
  onField(field: "name" | "tier" | "tolerance", value: string | undefined): void;
  onAddInput(name: string, type: string): void;
  onAddOutput(name: string): void;
  onUndo(): void;
  onRedo(): void;
  onShare(): void;
  onSave(): void;
  onFind(): void;
}

export function Toolbar(p: Props) {
  const [inName, setInName] = useState("x");
  const [inType, setInType] = useState("f32[N, 8]");
  const [outName, setOutName] = useState("y");
  const [name, setName] = useState<string | null>(null);
  return (
    <div className="toolbar">
      <label>
        name{" "}
        <input id="doc-name" value={name ?? p.doc.name} disabled={p.readOnly} onChange={(e) => setName(e.target.value)} onBlur={() => name !== null && (p.onField("name", name), setName(null))} onKeyDown={(e) => e.stopPropagation()} />
      </label>
      <label>
        tier{" "}
        <select id="tier-select" value={p.doc.tier ?? ""} disabled={p.readOnly} onChange={(e) => p.onField("tier", e.target.value || undefined)}>
          <option value="">none (W0009)</option>
          {TIERS.map((t) => (
            <option key={t}>{t}</option>
          ))}
          {p.doc.tier !== undefined && !(TIERS as readonly string[]).includes(p.doc.tier) && <option>{p.doc.tier}</option>}
        </select>
      </label>
      <label>
        tolerance{" "}
        <select id="tolerance-select" value={p.doc.tolerance ?? ""} disabled={p.readOnly} onChange={(e) => p.onField("tolerance", e.target.value || undefined)}>
          <option value="">(absent: default)</option>
          {TOLERANCES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <span className="group">
        <input id="input-name" size={4} value={inName} onChange={(e) => setInName(e.target.value)} onKeyDown={(e) => e.stopPropagation()} />
        <input id="input-type" size={10} value={inType} onChange={(e) => setInType(e.target.value)} onKeyDown={(e) => e.stopPropagation()} />
        <button id="add-input" disabled={p.readOnly} onClick={() => p.onAddInput(inName, inType)}>
          + input
        </button>
      </span>
      <span className="group">
        <input id="output-name" size={4} value={outName} onChange={(e) => setOutName(e.target.value)} onKeyDown={(e) => e.stopPropagation()} />
        <button id="add-output" disabled={p.readOnly} onClick={() => p.onAddOutput(outName)}>
          + output
        </button>
      </span>
      <button id="find-button" onClick={p.onFind} title="Ctrl+F">
        find / add op
      </button>
      <button id="undo" disabled={!p.undoLabel} onClick={p.onUndo} title="Ctrl+Z">
        undo{p.undoLabel ? ` ${p.undoLabel}` : ""}
      </button>
      <button id="redo" disabled={!p.redoLabel} onClick={p.onRedo} title="Ctrl+Shift+Z, Ctrl+Y">
        redo{p.redoLabel ? ` ${p.redoLabel}` : ""}
      </button>
      <button id="share" onClick={p.onShare}>
        share link
      </button>
      <button id="save" onClick={p.onSave}>
        save .json
      </button>
    </div>
  );
}
