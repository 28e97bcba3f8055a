// What a user does, as the commands that do it: one gesture, one list, one undo step.
import type { Catalogue } from "../catalogue/catalogue";
import type { JsonObject, JsonValue } from "../doc/json";
import { type WorkflowEdge, type WorkflowNode, splitRef } from "../doc/model";
import type { Command } from "./commands";
import { type EditorState, type Pos, inputKey, outputKey } from "./state";

function takenNames(state: EditorState): Set<string> {
  const { doc } = state;
  return new Set([...doc.inputs.map((i) => i.name), ...doc.nodes.map((n) => n.id)]);
}

// `base`, else base_2, base_3, ...: ids stay readable and never collide with inputs or nodes.
export function freshId(base: string, taken: ReadonlySet<string>): string {
  const stem = base.replace(/\./g, "_").replace(/_[0-9]+$/, "") || "node";
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; ++n) if (!taken.has(`${stem}_${n}`)) return `${stem}_${n}`;
}

export function addNode(state: EditorState, op: string, pos: Pos): Command[] {
  const id = freshId(op, takenNames(state));
  return [{ kind: "insertNode", index: state.doc.nodes.length, node: { id, op }, pos }];
}

export function addInput(state: EditorState, name: string, type: string, pos: Pos): Command[] {
  const id = freshId(name, takenNames(state));
  return [{ kind: "insertInput", index: state.doc.inputs.length, input: { name: id, type }, pos }];
}

export function addOutput(state: EditorState, name: string, from: string, pos: Pos): Command[] {
  const names = new Set(state.doc.outputs.map((o) => o.name));
  return [{ kind: "insertOutput", index: state.doc.outputs.length, output: { name: freshId(name, names), from }, pos }];
}

// from: an input name or node.result; to: node.operand, or "out:NAME" for an output. A
// connection to an operand that takes one edge replaces the edge it had.
export function connect(state: EditorState, catalogue: Catalogue, from: string, to: string): Command[] {
  if (to.startsWith("out:")) {
    const index = state.doc.outputs.findIndex((o) => outputKey(o.name) === to);
    return index < 0 ? [] : [{ kind: "setOutputFrom", index, from }];
  }
  const [nodeId, operand] = splitRef(to);
  const node = state.doc.nodes.find((n) => n.id === nodeId);
  const variadic = catalogue.find(node?.op ?? "")?.operands.find((o) => o.name === operand)?.arity === "variadic";
  const cmds: Command[] = [];
  let length = state.doc.edges.length;
  if (!variadic) {
    const old = state.doc.edges.map((e, i) => [e, i] as const).filter(([e]) => e.to === to);
    for (const [, i] of old.reverse()) cmds.push({ kind: "deleteEdge", index: i });
    length -= old.length;
  }
  cmds.push({ kind: "insertEdge", index: length, edge: { from, to } });
  return cmds;
}

export function disconnect(edgeIndex: number): Command[] {
  return [{ kind: "deleteEdge", index: edgeIndex }];
}

const sourceNode = (ref: string) => splitRef(ref)[0];

// Deletes the boxes named by layout key, and every edge that touches them (outputs that
// read a deleted node stay, dangling, and say so: W0004).
export function deleteKeys(state: EditorState, keys: ReadonlySet<string>): Command[] {
  const { doc } = state;
  const nodeIds = new Set(doc.nodes.filter((n) => keys.has(n.id)).map((n) => n.id));
  const inputs = new Set(doc.inputs.filter((i) => keys.has(inputKey(i.name))).map((i) => i.name));
  const gone = (e: WorkflowEdge) => nodeIds.has(splitRef(e.to)[0]) || nodeIds.has(sourceNode(e.from)) || inputs.has(e.from);
  // Last index first, so that each index still names the entry it meant.
  const descending = <T>(list: readonly T[], pick: (t: T) => boolean, make: (i: number) => Command) =>
    list.map((t, i) => [t, i] as const).filter(([t]) => pick(t)).reverse().map(([, i]) => make(i));
  return [
    ...descending(doc.edges, gone, (index) => ({ kind: "deleteEdge", index })),
    ...descending(doc.outputs, (o) => keys.has(outputKey(o.name)), (index) => ({ kind: "deleteOutput", index })),
    ...descending(doc.nodes, (n) => nodeIds.has(n.id), (index) => ({ kind: "deleteNode", index })),
    ...descending(doc.inputs, (i) => inputs.has(i.name), (index) => ({ kind: "deleteInput", index })),
  ];
}

export function setAttr(state: EditorState, nodeId: string, key: string, value: JsonValue | undefined): Command[] {
  const node = state.doc.nodes.find((n) => n.id === nodeId);
  if (!node) return [];
  const attrs: JsonObject = { ...(node.attrs ?? {}) };
  if (value === undefined) delete attrs[key];
  else attrs[key] = value;
  return [{ kind: "setAttrs", nodeId, attrs: Object.keys(attrs).length === 0 && node.attrs === undefined ? undefined : attrs }];
}

// ---- copy and paste: nodes with the edges between them, positions relative ---------------
export interface Clip {
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
  readonly positions: readonly Pos[];
}

export function copy(state: EditorState, keys: ReadonlySet<string>): Clip {
  const nodes = state.doc.nodes.filter((n) => keys.has(n.id));
  const ids = new Set(nodes.map((n) => n.id));
  const edges = state.doc.edges.filter((e) => ids.has(sourceNode(e.from)) && ids.has(splitRef(e.to)[0]));
  return { nodes, edges, positions: nodes.map((n) => state.layout[n.id] ?? { x: 0, y: 0 }) };
}

export function paste(state: EditorState, clip: Clip, offset: Pos): Command[] {
  const taken = takenNames(state);
  const rename = new Map<string, string>();
  for (const n of clip.nodes) {
    const id = freshId(n.id, taken);
    taken.add(id);
    rename.set(n.id, id);
  }
  const re = (ref: string) => {
    const [node, port] = splitRef(ref);
    const id = rename.get(node) ?? node;
    return port === undefined ? id : `${id}.${port}`;
  };
  const cmds: Command[] = clip.nodes.map((n, i) => {
    const p = clip.positions[i] ?? { x: 0, y: 0 };
    return { kind: "insertNode", index: state.doc.nodes.length + i, node: { ...n, id: rename.get(n.id) ?? n.id }, pos: { x: p.x + offset.x, y: p.y + offset.y } };
  });
  clip.edges.forEach((e, i) => cmds.push({ kind: "insertEdge", index: state.doc.edges.length + i, edge: { ...e, from: re(e.from), to: re(e.to) } }));
  return cmds;
}
