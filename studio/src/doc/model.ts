// The workflow document of docs/workflow.md as the studio holds it: plain immutable data.
// Fields the format does not name are kept in `extra` so that opening and saving a document
// never drops what another tool wrote.
import { canonicalJson } from "./canonical";
import { type JsonObject, type JsonValue, setKey } from "./json";

export const FORMAT = "rung-workflow";
export const VERSION = 1;
export const TIERS = ["debug", "prod", "fast"] as const;
export const TOLERANCES = ["exact", "tight", "default", "loose"] as const;

export interface WorkflowInput {
  readonly name: string;
  readonly type: string;
  readonly extra?: JsonObject;
}
export interface WorkflowNode {
  readonly id: string;
  readonly op: string;
  readonly attrs?: JsonObject;
  readonly extra?: JsonObject;
}
export interface WorkflowEdge {
  readonly from: string; // input name, node id, or node.result
  readonly to: string; // node.operand
  readonly extra?: JsonObject;
}
export interface WorkflowOutput {
  readonly name: string;
  readonly from: string;
  readonly extra?: JsonObject;
}
export interface WorkflowDoc {
  readonly name: string;
  readonly tier?: string; // absent: W0009, and the studio offers a control; it never picks one
  readonly tolerance?: string;
  readonly inputs: readonly WorkflowInput[];
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
  readonly outputs: readonly WorkflowOutput[];
  readonly extra?: JsonObject;
}

export function emptyDoc(name = "workflow"): WorkflowDoc {
  return { name, inputs: [], nodes: [], edges: [], outputs: [] };
}

function withExtra(fields: [string, JsonValue | undefined][], extra: JsonObject | undefined): JsonObject {
  const o: JsonObject = {};
  if (extra) for (const k of Object.keys(extra)) setKey(o, k, extra[k] as JsonValue);
  for (const [k, v] of fields) if (v !== undefined) setKey(o, k, v);
  return o;
}

export function docToJson(doc: WorkflowDoc): JsonObject {
  return withExtra(
    [
      ["format", FORMAT],
      ["version", BigInt(VERSION)],
      ["name", doc.name],
      ["tier", doc.tier],
      ["tolerance", doc.tolerance],
      ["inputs", doc.inputs.map((i) => withExtra([["name", i.name], ["type", i.type]], i.extra))],
      ["nodes", doc.nodes.map((n) => withExtra([["id", n.id], ["op", n.op], ["attrs", n.attrs]], n.extra))],
      ["edges", doc.edges.map((e) => withExtra([["from", e.from], ["to", e.to]], e.extra))],
      ["outputs", doc.outputs.map((o) => withExtra([["name", o.name], ["from", o.from]], o.extra))],
    ],
    doc.extra,
  );
}

export function canonicalDoc(doc: WorkflowDoc): string {
  return canonicalJson(docToJson(doc));
}

// "node.port" -> [node, port]; "x" -> [x, undefined]. Ids contain no dots (the schema's `to`).
export function splitRef(ref: string): [string, string | undefined] {
  const dot = ref.indexOf(".");
  return dot < 0 ? [ref, undefined] : [ref.slice(0, dot), ref.slice(dot + 1)];
}
