// Every diagnostic of the document in one list, including those that cannot be drawn (an
// edge whose ends do not exist): each can be selected, and a dangling edge removed.
import type { Diagnostic } from "../doc/diagnostic";
import { formatDiagnostic } from "../doc/diagnostic";

interface Props {
  diagnostics: readonly Diagnostic[];
  notices: readonly Diagnostic[];
  typesChecked: boolean;
  onSelectNode(id: string): void;
  onRemoveEdge(index: number): void;
}

export function Problems({ diagnostics, notices, typesChecked, onSelectNode, onRemoveEdge }: Props) {
  return (
    <div id="problems" className="problems">
      <div className="problems-head">
        {diagnostics.length === 0 ? "no problems found" : `${diagnostics.length} problem${diagnostics.length === 1 ? "" : "s"}`}
        {!typesChecked && <span className="unchecked"> · types and shapes unchecked (no engine)</span>}
      </div>
      {[...notices, ...diagnostics].map((d, i) => (
        <div key={i} className={`problem problem-${d.severity}`} data-problem={d.code}>
          <code>{formatDiagnostic(d)}</code>
          {d.nodeId !== undefined && <button onClick={() => onSelectNode(d.nodeId as string)}>show</button>}
          {d.edgeIndex !== undefined && d.code === "W0004" && (
            <button data-remove-edge={d.edgeIndex} onClick={() => onRemoveEdge(d.edgeIndex as number)}>
              remove edge
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
