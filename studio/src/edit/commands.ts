// The one mutation API: every change to the editor state is a Command, and applying one
// returns the new state and the command that undoes it exactly (the canonical bytes and the
// layout come back, not just an equal-looking drawing). States are never mutated.
import type { JsonObject } from "../doc/json";
import type { WorkflowDoc, WorkflowEdge, WorkflowInput, WorkflowNode, WorkflowOutput } from "../doc/model";
import { type EditorState, type Layout, type Pos, inputKey, outputKey } from "./state";

export type Command =
  | { readonly kind: "insertNode"; readonly index: number; readonly node: WorkflowNode; readonly pos: Pos | undefined }
  | { readonly kind: "deleteNode"; readonly index: number }
  | { readonly kind: "insertEdge"; readonly index: number; readonly edge: WorkflowEdge }
  | { readonly kind: "deleteEdge"; readonly index: number }
  | { readonly kind: "insertInput"; readonly index: number; readonly input: WorkflowInput; readonly pos: Pos | undefined }
  | { readonly kind: "deleteInput"; readonly index: number }
  | { readonly kind: "insertOutput"; readonly index: number; readonly output: WorkflowOutput; readonly pos: Pos | undefined }
  | { readonly kind: "deleteOutput"; readonly index: number }
  | { readonly kind: "setAttrs"; readonly nodeId: string; readonly attrs: JsonObject | undefined }
  | { readonly kind: "setOutputFrom"; readonly index: number; readonly from: string }
  | { readonly kind: "setField"; readonly field: "name" | "tier" | "tolerance"; readonly value: string | undefined }
  | { readonly kind: "move"; readonly key: string; readonly pos: Pos | undefined };

function insert<T>(list: readonly T[], index: number, item: T): T[] {
  if (index < 0 || index > list.length) throw new RangeError(`insert at ${index} of ${list.length}`);
  return [...list.slice(0, index), item, ...list.slice(index)];
}
function at<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new RangeError(`no entry ${index} of ${list.length}`);
  return item;
}
function remove<T>(list: readonly T[], index: number): T[] {
  at(list, index);
  return [...list.slice(0, index), ...list.slice(index + 1)];
}
function place(layout: Layout, key: string, pos: Pos | undefined): Layout {
  const next: Record<string, Pos> = { ...layout };
  if (pos === undefined) delete next[key];
  else next[key] = pos;
  return next;
}

export function apply(state: EditorState, cmd: Command): [EditorState, Command] {
  const { doc, layout } = state;
  const withDoc = (d: Partial<WorkflowDoc>, l: Layout = layout): EditorState => ({ doc: { ...doc, ...d }, layout: l });
  switch (cmd.kind) {
    case "insertNode":
      if (doc.nodes.some((n) => n.id === cmd.node.id) || layout[cmd.node.id]) throw new Error(`node id ${cmd.node.id} taken`);
      return [withDoc({ nodes: insert(doc.nodes, cmd.index, cmd.node) }, place(layout, cmd.node.id, cmd.pos)), { kind: "deleteNode", index: cmd.index }];
    case "deleteNode": {
      const node = at(doc.nodes, cmd.index);
      const pos = layout[node.id]; // undefined: it had no place, and gets none back
      return [withDoc({ nodes: remove(doc.nodes, cmd.index) }, place(layout, node.id, undefined)), { kind: "insertNode", index: cmd.index, node, pos }];
    }
    case "insertEdge":
      return [withDoc({ edges: insert(doc.edges, cmd.index, cmd.edge) }), { kind: "deleteEdge", index: cmd.index }];
    case "deleteEdge":
      return [withDoc({ edges: remove(doc.edges, cmd.index) }), { kind: "insertEdge", index: cmd.index, edge: at(doc.edges, cmd.index) }];
    case "insertInput":
      return [withDoc({ inputs: insert(doc.inputs, cmd.index, cmd.input) }, place(layout, inputKey(cmd.input.name), cmd.pos)), { kind: "deleteInput", index: cmd.index }];
    case "deleteInput": {
      const input = at(doc.inputs, cmd.index);
      const key = inputKey(input.name);
      return [withDoc({ inputs: remove(doc.inputs, cmd.index) }, place(layout, key, undefined)), { kind: "insertInput", index: cmd.index, input, pos: layout[key] }];
    }
    case "insertOutput":
      return [withDoc({ outputs: insert(doc.outputs, cmd.index, cmd.output) }, place(layout, outputKey(cmd.output.name), cmd.pos)), { kind: "deleteOutput", index: cmd.index }];
    case "deleteOutput": {
      const output = at(doc.outputs, cmd.index);
      const key = outputKey(output.name);
      return [withDoc({ outputs: remove(doc.outputs, cmd.index) }, place(layout, key, undefined)), { kind: "insertOutput", index: cmd.index, output, pos: layout[key] }];
    }
    case "setAttrs": {
      const index = doc.nodes.findIndex((n) => n.id === cmd.nodeId);
      const node = at(doc.nodes, index);
      const { attrs: old, ...rest } = node;
      const next: WorkflowNode = cmd.attrs === undefined ? rest : { ...rest, attrs: cmd.attrs };
      return [withDoc({ nodes: doc.nodes.map((n, i) => (i === index ? next : n)) }), { kind: "setAttrs", nodeId: cmd.nodeId, attrs: old }];
    }
    case "setOutputFrom": {
      const output = at(doc.outputs, cmd.index);
      return [withDoc({ outputs: doc.outputs.map((o, i) => (i === cmd.index ? { ...o, from: cmd.from } : o)) }), { kind: "setOutputFrom", index: cmd.index, from: output.from }];
    }
    case "setField": {
      const old = doc[cmd.field];
      const next: Record<string, unknown> = { ...doc };
      if (cmd.value === undefined) delete next[cmd.field];
      else next[cmd.field] = cmd.value;
      return [{ doc: next as unknown as WorkflowDoc, layout }, { kind: "setField", field: cmd.field, value: old }];
    }
    case "move":
      return [{ doc, layout: place(layout, cmd.key, cmd.pos) }, { kind: "move", key: cmd.key, pos: layout[cmd.key] }];
  }
}

// Applies commands in order; the inverses come back in the order that undoes them.
export function applyAll(state: EditorState, cmds: readonly Command[]): [EditorState, Command[]] {
  const inverses: Command[] = [];
  let s = state;
  for (const c of cmds) {
    const [next, inv] = apply(s, c);
    s = next;
    inverses.unshift(inv);
  }
  return [s, inverses];
}
