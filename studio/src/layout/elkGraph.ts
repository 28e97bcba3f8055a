// The document as ELK's input graph (elkjs, layered, left to right, port-aware), and ELK's
// answer back as a layout. Pure, so the Worker and the tests run the same code.
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import { type WorkflowDoc, splitRef } from "../doc/model";
import { type Layout, inputKey, outputKey } from "../edit/state";

export type Sizes = Readonly<Record<string, { width: number; height: number }>>;

// A box not measured yet (off screen, never mounted) gets the size of a typical op box.
const DEFAULT_SIZE = { width: 180, height: 90 };

const OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "RIGHT",
  "elk.layered.spacing.nodeNodeBetweenLayers": "80",
  "elk.spacing.nodeNode": "30",
  "elk.portConstraints": "FIXED_SIDE",
  // Speed over polish: on the 1,000-node grid, warm in node, the defaults took 6 s and these
  // 1.6 s (a first, cold layout still takes 3-6 s: bench/studio/RESULTS-studio.md).
  "elk.layered.thoroughness": "1",
  "elk.layered.nodePlacement.strategy": "SIMPLE",
  // Only the positions are used (React Flow draws the edges): the cheapest routing
  // (orthogonal routing took a further 1.3 s of a cold 4.7 s for 1,000 boxes in node).
  "elk.edgeRouting": "POLYLINE",
  // Deterministic: the same document and sizes give the same positions.
  "elk.randomSeed": "1",
};

export function elkGraph(doc: WorkflowDoc, sizes: Sizes): ElkNode {
  const inputs = new Set(doc.inputs.map((i) => i.name));
  const keyOf = (ref: string) => {
    const [base] = splitRef(ref);
    return inputs.has(base) ? inputKey(base) : base;
  };
  const known = new Set<string>();
  const ports = new Map<string, Set<string>>();
  const port = (key: string, id: string) => (ports.get(key) ?? ports.set(key, new Set()).get(key)!).add(id);
  const edges: ElkExtendedEdge[] = [];
  const keys = [...doc.inputs.map((i) => inputKey(i.name)), ...doc.nodes.map((n) => n.id), ...doc.outputs.map((o) => outputKey(o.name))];
  keys.forEach((k) => known.add(k));
  const connect = (from: string, to: string, toKey: string) => {
    const fromKey = keyOf(from);
    if (!known.has(fromKey) || !known.has(toKey)) return; // a dangling edge (W0004) is not laid out
    const src = `${from}>`, dst = `${to}<`;
    port(fromKey, src);
    port(toKey, dst);
    edges.push({ id: `e${edges.length}`, sources: [src], targets: [dst] });
  };
  for (const e of doc.edges) connect(e.from, e.to, splitRef(e.to)[0]);
  for (const o of doc.outputs) if (o.from) connect(o.from, outputKey(o.name), outputKey(o.name));
  const children: ElkNode[] = keys.map((k) => ({
    id: k,
    ...(sizes[k] ?? DEFAULT_SIZE),
    ports: [...(ports.get(k) ?? [])].map((id) => ({ id, layoutOptions: { "elk.port.side": id.endsWith(">") ? "EAST" : "WEST" } })),
  }));
  return { id: "root", layoutOptions: OPTIONS, children, edges };
}

export function layoutFromElk(result: ElkNode): Layout {
  const out: Record<string, { x: number; y: number }> = {};
  for (const c of result.children ?? []) out[c.id] = { x: Math.round(c.x ?? 0), y: Math.round(c.y ?? 0) };
  return out;
}
