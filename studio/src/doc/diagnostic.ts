// A studio diagnostic: the engine's W-codes for workflow documents (docs/workflow.md), plus
// the studio's own S-codes (docs/studio.md) for what only the studio does (files, links).
import type { Location } from "./json";

export type Code =
  | "W0001" | "W0002" | "W0003" | "W0004" | "W0005" | "W0006" | "W0007" | "W0008" | "W0009" | "W0010"
  | "S0001" | "S0002" | "S0003";

export interface Diagnostic {
  readonly code: Code;
  readonly severity: "error" | "warning";
  readonly message: string;
  readonly pointer?: string; // JSON pointer into the document
  readonly at?: Location; // where in the text it was read from, when it came from a text
  readonly nodeId?: string; // the node it is drawn on
  readonly edgeIndex?: number; // the edge it is drawn on
  readonly notes?: readonly string[];
  // The stage of the engine's lowering that reports it (src/workflow/workflow.cpp); the engine
  // stops after the first stage with errors, the studio shows every stage at once.
  readonly stage?: Stage;
}

export const STAGES = ["header", "inputs", "nodes", "edges", "outputs", "cycle", "build"] as const;
export type Stage = (typeof STAGES)[number];

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.at ? `${d.at.line}:${d.at.column}: ` : "";
  const ptr = d.pointer !== undefined ? ` (at JSON pointer ${d.pointer || "/"})` : "";
  const notes = (d.notes ?? []).map((n) => `\n  note: ${n}`).join("");
  return `${where}${d.severity} ${d.code}: ${d.message}${ptr}${notes}`;
}
