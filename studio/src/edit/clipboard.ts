// A copied group as text on the system clipboard (so it pastes into another tab), written
// with the canonical JSON writer so that integer attributes stay integers.
import { canonicalJson } from "../doc/canonical";
import { isObject, parseJson, type JsonValue } from "../doc/json";
import { docToJson, emptyDoc } from "../doc/model";
import { parseWorkflow } from "../doc/parse";
import type { Clip } from "./gestures";

const KIND = "rung-studio-clip";

export function clipToText(clip: Clip): string {
  const doc = docToJson({ ...emptyDoc("clip"), nodes: clip.nodes, edges: clip.edges, outputs: [] });
  const positions: JsonValue = clip.positions.map((p) => [p.x, p.y]);
  return canonicalJson({ kind: KIND, doc, positions });
}

// null: the text is not a group the studio copied.
export function clipFromText(text: string): Clip | null {
  const v = parseJson(text);
  if (!v.ok || !isObject(v.value) || v.value.kind !== KIND || !isObject(v.value.doc) || !Array.isArray(v.value.positions)) return null;
  const parsed = parseWorkflow(canonicalJson(v.value.doc));
  if (!parsed.doc) return null;
  const positions = v.value.positions.map((p) => {
    const [x, y] = Array.isArray(p) ? p : [];
    return { x: Number(x ?? 0), y: Number(y ?? 0) };
  });
  return { nodes: parsed.doc.nodes, edges: parsed.doc.edges, positions };
}
