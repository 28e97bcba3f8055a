// Rendering is a pure function of state: the editor state, its diagnostics and the selection
// in, React Flow's nodes and edges out. Nothing here changes the document.
import type { Edge, Node } from "@xyflow/react";
import type { Catalogue, OpInfo } from "../catalogue/catalogue";
import type { Diagnostic } from "../doc/diagnostic";
import { type WorkflowNode, splitRef } from "../doc/model";
import { type EditorState, type Pos, inputKey, outputKey } from "../edit/state";

export interface Port {
  readonly name: string;
  readonly variadic?: boolean;
  readonly optional?: boolean;
}
export interface OpNodeData extends Record<string, unknown> {
  readonly node: WorkflowNode;
  readonly op: OpInfo | undefined; // undefined: unresolved (W0003), drawn with its code
  readonly operands: readonly Port[];
  readonly results: readonly Port[];
  readonly diagnostics: readonly Diagnostic[];
  readonly readOnly: boolean;
}
export interface IoNodeData extends Record<string, unknown> {
  readonly role: "input" | "output";
  readonly name: string;
  readonly detail: string; // an input's type, an output's source
  readonly diagnostics: readonly Diagnostic[];
}

const origin: Pos = { x: 0, y: 0 };

// Ports an unresolved node's edges name, so its edges still draw.
function portsFromEdges(state: EditorState, id: string): [Port[], Port[]] {
  const operands = new Set<string>();
  const results = new Set<string>();
  for (const e of state.doc.edges) {
    const [to, operand] = splitRef(e.to);
    if (to === id && operand) operands.add(operand);
    const [from, result] = splitRef(e.from);
    if (from === id) results.add(result ?? "y");
  }
  for (const o of state.doc.outputs) {
    const [from, result] = splitRef(o.from);
    if (from === id) results.add(result ?? "y");
  }
  return [[...operands].map((name) => ({ name })), [...results].map((name) => ({ name }))];
}

// An edge's source as React Flow spells it: [node, handle], or null when it dangles.
function sourceOf(inputs: ReadonlySet<string>, nodes: ReadonlyMap<string, WorkflowNode>, catalogue: Catalogue, ref: string): [string, string] | null {
  const [node, port] = splitRef(ref);
  if (port === undefined && inputs.has(ref)) return [inputKey(ref), "value"];
  const n = nodes.get(node);
  if (!n) return null;
  const op = catalogue.find(n.op);
  if (port !== undefined) return [node, port];
  return [node, op?.results[0]?.name ?? "y"];
}

export function toFlow(state: EditorState, catalogue: Catalogue, diagnostics: readonly Diagnostic[], selected: ReadonlySet<string>, readOnly: boolean, dragging: Readonly<Record<string, Pos>>) {
  const at = (key: string) => dragging[key] ?? state.layout[key] ?? origin;
  const inputNames = new Set(state.doc.inputs.map((i) => i.name));
  const nodeById = new Map(state.doc.nodes.map((n) => [n.id, n] as const));
  const byNode = new Map<string, Diagnostic[]>();
  const byEdge = new Map<number, Diagnostic[]>();
  const byPointer = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    if (d.nodeId !== undefined) byNode.set(d.nodeId, [...(byNode.get(d.nodeId) ?? []), d]);
    if (d.edgeIndex !== undefined) byEdge.set(d.edgeIndex, [...(byEdge.get(d.edgeIndex) ?? []), d]);
    if (d.pointer !== undefined) {
      const head = d.pointer.split("/").slice(0, 3).join("/");
      byPointer.set(head, [...(byPointer.get(head) ?? []), d]);
    }
  }
  const nodes: Node[] = [];
  state.doc.inputs.forEach((inp, i) => {
    const key = inputKey(inp.name);
    const data: IoNodeData = { role: "input", name: inp.name, detail: inp.type, diagnostics: byPointer.get(`/inputs/${i}`) ?? [] };
    nodes.push({ id: key, type: "io", position: at(key), data, selected: selected.has(key), draggable: !readOnly });
  });
  state.doc.nodes.forEach((n) => {
    const op = catalogue.find(n.op);
    const [operands, results] = op
      ? [op.operands.map((o) => ({ name: o.name, variadic: o.arity === "variadic", optional: o.arity === "optional" })), op.results.map((r) => ({ name: r.name }))]
      : portsFromEdges(state, n.id);
    const data: OpNodeData = { node: n, op, operands, results, diagnostics: byNode.get(n.id) ?? [], readOnly };
    nodes.push({ id: n.id, type: "op", position: at(n.id), data, selected: selected.has(n.id), draggable: !readOnly });
  });
  state.doc.outputs.forEach((o, i) => {
    const key = outputKey(o.name);
    const data: IoNodeData = { role: "output", name: o.name, detail: o.from, diagnostics: byPointer.get(`/outputs/${i}`) ?? [] };
    nodes.push({ id: key, type: "io", position: at(key), data, selected: selected.has(key), draggable: !readOnly });
  });

  const edges: Edge[] = [];
  state.doc.edges.forEach((e, i) => {
    const src = sourceOf(inputNames, nodeById, catalogue, e.from);
    const [target, operand] = splitRef(e.to);
    if (!src || operand === undefined || !nodeById.has(target)) return; // listed in the problems pane
    const problems = byEdge.get(i) ?? [];
    const id = `e${i}`;
    edges.push({
      id,
      source: src[0],
      sourceHandle: src[1],
      target,
      targetHandle: operand,
      selected: selected.has(id),
      className: problems.length ? "edge-error" : undefined,
      label: problems.length ? problems.map((d) => d.code).join(" ") : undefined,
      data: { edgeIndex: i },
      domAttributes: { "data-edge": `${e.from}->${e.to}` } as Edge["domAttributes"], // selectable by the document's spelling
    });
  });
  state.doc.outputs.forEach((o, i) => {
    const src = sourceOf(inputNames, nodeById, catalogue, o.from);
    if (!src) return;
    const id = `o${i}`;
    edges.push({ id, source: src[0], sourceHandle: src[1], target: outputKey(o.name), targetHandle: "value", selected: selected.has(id), data: { output: i }, domAttributes: { "data-edge": `${o.from}->${outputKey(o.name)}` } as Edge["domAttributes"] });
  });
  return { nodes, edges };
}
