// A file dropped on the canvas: a workflow .json opens (its problems drawn); .rung and .keg
// need the engine to lower them and say so (S0001); anything else is named, not ignored.
import type { Diagnostic } from "../doc/diagnostic";
import { parseWorkflow } from "../doc/parse";
import { autoLayout } from "../edit/autolayout";
import type { Opened } from "./opened";

export async function openText(name: string, text: string): Promise<{ opened: Opened | null; notices: Diagnostic[] }> {
  const lower = name.toLowerCase();
  if (lower.endsWith(".rung") || lower.endsWith(".keg"))
    return { opened: null, notices: [{ code: "S0001", severity: "error", message: `${name}: opening .rung and .keg files needs the engine, which is not loaded yet` }] };
  if (!lower.endsWith(".json")) return { opened: null, notices: [{ code: "S0001", severity: "error", message: `${name}: the studio opens workflow .json files (and, with the engine, .rung and .keg)` }] };
  const parsed = parseWorkflow(text);
  if (!parsed.doc) return { opened: null, notices: parsed.diagnostics.map((d) => ({ ...d, message: `${name}: ${d.message}` })) };
  return { opened: { state: { doc: parsed.doc, layout: autoLayout(parsed.doc, {}) }, readOnly: null, notices: [] }, notices: [] };
}

export async function openDroppedFile(file: File): Promise<{ opened: Opened | null; notices: Diagnostic[] }> {
  return openText(file.name, await file.text());
}
