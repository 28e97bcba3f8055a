// Places boxes that have no position: inputs in the first column, each node one column right
// of its deepest producer, outputs last; rows in document order. Deterministic, and it keeps
// every position already set (hand-placed boxes stay). "Lay out" (src/layout/, elkjs) redoes all.
import { type WorkflowDoc, splitRef } from "../doc/model";
import { type Layout, type Pos, inputKey, outputKey } from "./state";

const COLUMN = 260;
const ROW = 140;

export function autoLayout(doc: WorkflowDoc, layout: Layout): Layout {
  const depth = new Map<string, number>();
  const producers = new Map<string, string[]>();
  for (const e of doc.edges) {
    const to = splitRef(e.to)[0];
    producers.set(to, [...(producers.get(to) ?? []), splitRef(e.from)[0]]);
  }
  const ids = new Set(doc.nodes.map((n) => n.id));
  const visit = (id: string, onPath: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (onPath.has(id)) return 1; // a cycle (W0005): any column will do
    onPath.add(id);
    let d = 1;
    for (const p of producers.get(id) ?? []) if (ids.has(p)) d = Math.max(d, visit(p, onPath) + 1);
    onPath.delete(id);
    depth.set(id, d);
    return d;
  };
  doc.nodes.forEach((n) => visit(n.id, new Set()));
  const last = Math.max(1, ...depth.values()) + 1;
  const rows = new Map<number, number>();
  const out: Record<string, Pos> = { ...layout };
  const put = (key: string, column: number) => {
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    if (!out[key]) out[key] = { x: column * COLUMN, y: row * ROW };
  };
  doc.inputs.forEach((i) => put(inputKey(i.name), 0));
  doc.nodes.forEach((n) => put(n.id, depth.get(n.id) ?? 1));
  doc.outputs.forEach((o) => put(outputKey(o.name), last));
  return out;
}

// Where a new box goes: the first cell of a grid (four columns) that no box is near, so that
// boxes added one after another never cover each other's ports.
export function freeSlot(layout: Layout): Pos {
  const taken = Object.values(layout);
  for (let k = 0; ; ++k) {
    const p = { x: (k % 4) * COLUMN, y: Math.floor(k / 4) * ROW };
    if (!taken.some((q) => Math.abs(q.x - p.x) < COLUMN / 2 && Math.abs(q.y - p.y) < ROW / 2)) return p;
  }
}
