// What the studio can check without the engine: names, ops, ports, edges, cycles and the
// kinds of attribute values, with the engine's W-codes (src/workflow/workflow.cpp). Types and
// shapes are the engine's (W0006 from the op's checker); without it they are unchecked and the
// UI says so. Every diagnostic names the node or edge it is drawn on.
import type { Catalogue, AttrInfo, OpInfo } from "../catalogue/catalogue";
import type { Diagnostic, Stage } from "./diagnostic";
import { escapePointerToken, type JsonValue } from "./json";
import { TIERS, TOLERANCES, type WorkflowDoc, splitRef } from "./model";
import { DTYPES, typeTextError } from "./typetext";

const isInt = (v: JsonValue) => typeof v === "bigint" && v >= -(2n ** 63n) && v < 2n ** 63n;
const isNum = (v: JsonValue) => typeof v === "bigint" || typeof v === "number";

export function attrValueFits(kind: AttrInfo["kind"], v: JsonValue): boolean {
  switch (kind) {
    case "bool":
      return typeof v === "boolean";
    case "int":
      return isInt(v);
    case "float":
      return isNum(v);
    case "string":
      return typeof v === "string";
    case "ints":
      return Array.isArray(v) && v.every(isInt);
    case "floats":
      return Array.isArray(v) && v.every(isNum);
    case "dtype":
      return typeof v === "string" && DTYPES.includes(v);
    case "shape":
      return Array.isArray(v) && v.every((x) => (typeof x === "bigint" && x >= 0n) || (typeof x === "string" && x !== ""));
  }
}

export function checkDocument(doc: WorkflowDoc, catalogue: Catalogue): Diagnostic[] {
  const out: Diagnostic[] = [];
  let stage: Stage = "header";
  const err = (d: Omit<Diagnostic, "severity">) => out.push({ severity: "error", stage, ...d });

  if (doc.name === "") err({ code: "W0002", message: '"name" must not be empty', pointer: "/name" });
  if (doc.tier === undefined)
    err({ code: "W0009", message: "the workflow declares no determinism tier", pointer: "/tier", notes: ["choose debug (bit-exact), prod or fast: rung never picks a tier for you"] });
  else if (!(TIERS as readonly string[]).includes(doc.tier))
    err({ code: "W0009", message: `unknown tier "${doc.tier}" (debug, prod or fast)`, pointer: "/tier" });
  if (doc.tolerance !== undefined && !(TOLERANCES as readonly string[]).includes(doc.tolerance))
    err({ code: "W0002", message: `unknown tolerance class "${doc.tolerance}" (exact, tight, default or loose)`, pointer: "/tolerance" });

  stage = "inputs";
  const ids = new Set<string>();
  const inputs = new Set<string>();
  doc.inputs.forEach((inp, i) => {
    const why = typeTextError(inp.type);
    if (why !== null) err({ code: "W0010", message: `input "${inp.name}": ${why}`, pointer: `/inputs/${i}/type` });
    if (ids.has(inp.name)) err({ code: "W0008", message: `the name "${inp.name}" is used twice`, pointer: `/inputs/${i}/name` });
    ids.add(inp.name);
    inputs.add(inp.name);
  });

  stage = "nodes";
  const ops = new Map<string, OpInfo | null>(); // null: unknown op (already W0003)
  doc.nodes.forEach((node, i) => {
    const ptr = `/nodes/${i}`;
    if (node.id.includes(".") || node.id === "")
      err({ code: "W0002", message: `node id "${node.id}" must be non-empty and without a dot (edges are spelled node.port)`, pointer: `${ptr}/id`, nodeId: node.id });
    if (ids.has(node.id)) {
      err({ code: "W0008", message: `the id "${node.id}" is used twice`, pointer: `${ptr}/id`, nodeId: node.id });
      return;
    }
    ids.add(node.id);
    const op = catalogue.find(node.op);
    ops.set(node.id, op ?? null);
    if (!op) {
      const near = catalogue.suggest(node.op);
      err({ code: "W0003", message: `node "${node.id}": unknown op "${node.op}"`, pointer: `${ptr}/op`, nodeId: node.id, ...(near ? { notes: [`did you mean "${near}"?`] } : {}) });
      return;
    }
    // The engine reads attribute values while it builds each node.
    const attrs = node.attrs ?? {};
    stage = "build";
    for (const key of Object.keys(attrs)) {
      const spec = op.attributes.find((a) => a.name === key);
      const aptr = `${ptr}/attrs/${escapePointerToken(key)}`;
      if (!spec) {
        err({ code: "W0006", message: `node "${node.id}": op ${op.name} has no attribute "${key}"`, pointer: aptr, nodeId: node.id, notes: [`attributes: ${op.attributes.map((a) => a.name).join(", ") || "none"}`] });
      } else if (!attrValueFits(spec.kind, attrs[key] as JsonValue)) {
        err({ code: "W0006", message: `node "${node.id}": attribute "${key}" must be ${spec.kind}`, pointer: aptr, nodeId: node.id });
      } else if (spec.choices && !spec.choices.includes(attrs[key] as string)) {
        err({ code: "W0006", message: `node "${node.id}": attribute "${key}" is one of ${spec.choices.join(", ")}`, pointer: aptr, nodeId: node.id });
      }
    }
    for (const spec of op.attributes)
      if (spec.presence === "required" && !(spec.name in attrs))
        err({ code: "W0006", message: `node "${node.id}": op ${op.name} needs attribute "${spec.name}"`, pointer: `${ptr}/attrs`, nodeId: node.id, notes: [spec.doc] });
    stage = "nodes";
  });

  // A source is an input, a node (its only result) or node.result; null if it dangles.
  const source = (ref: string, pointer: string, where: { nodeId?: string; edgeIndex?: number }): string | null => {
    const [node, port] = splitRef(ref);
    if (port === undefined && inputs.has(ref)) return "";
    const op = ops.get(node);
    if (op === undefined) {
      err({ code: "W0004", message: `"${ref}": there is no input or node "${node}"`, pointer, ...where });
      return null;
    }
    if (op === null) return node; // its op is unknown: W0003 says so already
    if (port === undefined) {
      if (op.results.length !== 1) {
        err({ code: "W0004", message: `"${ref}": node "${node}" has several results; name one as "${node}.${op.results[0]?.name ?? "?"}"`, pointer, ...where });
        return null;
      }
      return node;
    }
    if (!op.results.some((r) => r.name === port)) {
      err({ code: "W0004", message: `"${ref}": op ${op.name} has no result "${port}"`, pointer, ...where, notes: [`results: ${op.results.map((r) => r.name).join(", ")}`] });
      return null;
    }
    return node;
  };

  stage = "edges";
  const incoming = new Map<string, Map<string, number>>(); // node -> operand -> edges
  const deps = new Map<string, Set<string>>();
  doc.edges.forEach((edge, i) => {
    const ptr = `/edges/${i}`;
    const from = source(edge.from, `${ptr}/from`, { edgeIndex: i });
    const [node, operand] = splitRef(edge.to);
    const op = ops.get(node);
    if (op === undefined || operand === undefined || operand.includes(".")) {
      err({ code: "W0004", message: `edge to "${edge.to}": expected NODE.OPERAND naming an existing node`, pointer: `${ptr}/to`, edgeIndex: i });
      return;
    }
    if (op !== null) {
      const spec = op.operands.find((o) => o.name === operand);
      if (!spec) {
        err({ code: "W0004", message: `edge to "${edge.to}": op ${op.name} has no operand "${operand}"`, pointer: `${ptr}/to`, edgeIndex: i, nodeId: node, notes: [`operands: ${op.operands.map((o) => o.name).join(", ")}`] });
        return;
      }
      const perNode = incoming.get(node) ?? new Map<string, number>();
      incoming.set(node, perNode);
      const count = (perNode.get(operand) ?? 0) + 1;
      perNode.set(operand, count);
      if (count > 1 && spec.arity !== "variadic")
        err({ code: "W0007", message: `operand "${edge.to}" is connected twice`, pointer: `${ptr}/to`, edgeIndex: i, nodeId: node });
    }
    if (from) {
      const set = deps.get(node) ?? new Set<string>();
      set.add(from);
      deps.set(node, set);
    }
  });

  stage = "build";
  doc.nodes.forEach((node, i) => {
    const op = ops.get(node.id);
    if (!op) return;
    for (const operand of op.operands)
      if (operand.arity !== "optional" && !incoming.get(node.id)?.get(operand.name))
        err({ code: "W0007", message: `node "${node.id}": operand "${operand.name}" of ${op.name} is not connected`, pointer: `/nodes/${i}`, nodeId: node.id });
  });

  stage = "outputs";
  const outNames = new Set<string>();
  doc.outputs.forEach((o, i) => {
    if (outNames.has(o.name)) err({ code: "W0008", message: `the output name "${o.name}" is used twice`, pointer: `/outputs/${i}/name` });
    outNames.add(o.name);
    if (o.from === "") err({ code: "W0004", message: `output "${o.name}" is not connected to anything`, pointer: `/outputs/${i}/from`, notes: ["drag a result onto it"] });
    else source(o.from, `/outputs/${i}/from`, {});
  });
  if (doc.outputs.length === 0) err({ code: "W0002", message: "a workflow needs at least one output", pointer: "/outputs" });

  stage = "cycle";
  for (const id of cycleNodes(doc, deps))
    err({ code: "W0005", message: `node "${id}" is on a cycle`, nodeId: id, notes: ["a workflow is a directed acyclic graph; loops belong in rung source (for/while)"] });
  return out;
}

// Nodes that never become ready when sources are removed one by one (Kahn's algorithm).
function cycleNodes(doc: WorkflowDoc, deps: Map<string, Set<string>>): string[] {
  const pending = new Map<string, number>();
  const users = new Map<string, string[]>();
  for (const n of doc.nodes) pending.set(n.id, 0);
  for (const [node, from] of deps)
    for (const f of from) {
      if (!pending.has(node) || !pending.has(f)) continue;
      pending.set(node, (pending.get(node) ?? 0) + 1);
      const list = users.get(f) ?? [];
      list.push(node);
      users.set(f, list);
    }
  const ready = [...pending].filter(([, c]) => c === 0).map(([id]) => id);
  while (ready.length > 0) {
    const id = ready.pop() as string;
    for (const u of users.get(id) ?? []) {
      const c = (pending.get(u) ?? 0) - 1;
      pending.set(u, c);
      if (c === 0) ready.push(u);
    }
  }
  return [...pending].filter(([, c]) => c > 0).map(([id]) => id);
}
