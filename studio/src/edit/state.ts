// What the editor holds: the document (hashed, shared) and its layout (where each box sits;
// shared beside the document, never hashed). Keys of the layout: a node's id, "in:NAME" for
// an input, "out:NAME" for an output.
import type { WorkflowDoc } from "../doc/model";

export interface Pos {
  readonly x: number;
  readonly y: number;
}
export type Layout = Readonly<Record<string, Pos>>;

export interface EditorState {
  readonly doc: WorkflowDoc;
  readonly layout: Layout;
}

export const inputKey = (name: string) => `in:${name}`;
export const outputKey = (name: string) => `out:${name}`;
