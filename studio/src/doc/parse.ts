// Text -> WorkflowDoc. A document opens for editing when every value has the shape the
// format names (strings where strings go, lists where lists go); then what is wrong in it
// (unknown ops, dangling edges, a missing tier...) is check.ts's business and the drawing
// shows it. A shape error (W0002) or malformed JSON (W0001) opens nothing and says where.
import type { Diagnostic } from "./diagnostic";
import { type JsonObject, type JsonValue, isObject, locate, parseJson } from "./json";
import { FORMAT, VERSION, type WorkflowDoc } from "./model";

export type ParseResult = { doc: WorkflowDoc; diagnostics: Diagnostic[] } | { doc: null; diagnostics: Diagnostic[] };

const KNOWN = {
  top: ["format", "version", "name", "tier", "tolerance", "inputs", "nodes", "edges", "outputs"],
  input: ["name", "type"],
  node: ["id", "op", "attrs"],
  edge: ["from", "to"],
  output: ["name", "from"],
};

function typeName(v: JsonValue | undefined): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "bigint" || typeof v === "number") return "number";
  return typeof v;
}

function extraOf(o: JsonObject, known: readonly string[]): JsonObject | undefined {
  const keys = Object.keys(o).filter((k) => !known.includes(k));
  if (keys.length === 0) return undefined;
  const extra: JsonObject = {};
  for (const k of keys) Object.defineProperty(extra, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return extra;
}

export function parseWorkflow(text: string): ParseResult {
  const json = parseJson(text);
  if (!json.ok) {
    const d: Diagnostic = { code: json.error.code, severity: "error", message: json.error.message, at: json.error.at };
    return { doc: null, diagnostics: [json.error.pointer !== undefined ? { ...d, pointer: json.error.pointer } : d] };
  }
  const diags: Diagnostic[] = [];
  const at = (pointer: string) => {
    const offset = json.spans.get(pointer);
    return offset === undefined ? {} : { at: locate(text, offset) };
  };
  const shape = (pointer: string, message: string) => diags.push({ code: "W0002", severity: "error", message, pointer, ...at(pointer) });
  const top = json.value;
  if (!isObject(top)) {
    shape("", "a workflow document is a JSON object");
    return { doc: null, diagnostics: diags };
  }
  if (top.format !== FORMAT) {
    shape("/format", top.format === undefined ? 'missing field "format" (a workflow says "format": "rung-workflow")' : `"format" must be "${FORMAT}"`);
    return { doc: null, diagnostics: diags };
  }
  if (typeof top.version !== "bigint") {
    shape("/version", `field "version" must be an integer (${typeName(top.version)})`);
    return { doc: null, diagnostics: diags };
  }
  if (top.version !== BigInt(VERSION)) {
    shape("/version", `unsupported workflow version ${top.version} (this studio reads version ${VERSION})`);
    return { doc: null, diagnostics: diags };
  }
  const str = (o: JsonObject, key: string, ptr: string, required: boolean): string | undefined => {
    const v = o[key];
    if (typeof v === "string") return v;
    if (v !== undefined || required) shape(`${ptr}/${key}`, `field "${key}" must be a string (${typeName(v)})`);
    return undefined;
  };
  const list = <T>(key: string, known: readonly string[], read: (o: JsonObject, ptr: string) => T | undefined): T[] => {
    const v = top[key];
    if (!Array.isArray(v)) {
      shape(`/${key}`, `field "${key}" must be an array (${typeName(v)})`);
      return [];
    }
    const out: T[] = [];
    v.forEach((item, i) => {
      const ptr = `/${key}/${i}`;
      if (!isObject(item)) {
        shape(ptr, `each entry of "${key}" is an object (${typeName(item)})`);
        return;
      }
      const r = read(item, ptr);
      if (r !== undefined) {
        const extra = extraOf(item, known);
        out.push(extra ? { ...r, extra } : r);
      }
    });
    return out;
  };
  const name = str(top, "name", "", true);
  const tier = str(top, "tier", "", false);
  const tolerance = str(top, "tolerance", "", false);
  const inputs = list("inputs", KNOWN.input, (o, ptr) => {
    const n = str(o, "name", ptr, true);
    const t = str(o, "type", ptr, true);
    return n !== undefined && t !== undefined ? { name: n, type: t } : undefined;
  });
  const nodes = list("nodes", KNOWN.node, (o, ptr) => {
    const id = str(o, "id", ptr, true);
    const op = str(o, "op", ptr, true);
    const attrs = o.attrs;
    if (attrs !== undefined && !isObject(attrs)) {
      shape(`${ptr}/attrs`, `node "${id ?? "?"}": "attrs" must be an object (${typeName(attrs)})`);
      return undefined;
    }
    if (id === undefined || op === undefined) return undefined;
    return attrs === undefined ? { id, op } : { id, op, attrs };
  });
  const edges = list("edges", KNOWN.edge, (o, ptr) => {
    const from = str(o, "from", ptr, true);
    const to = str(o, "to", ptr, true);
    return from !== undefined && to !== undefined ? { from, to } : undefined;
  });
  const outputs = list("outputs", KNOWN.output, (o, ptr) => {
    const n = str(o, "name", ptr, true);
    const from = str(o, "from", ptr, true);
    return n !== undefined && from !== undefined ? { name: n, from } : undefined;
  });
  if (diags.length > 0 || name === undefined) return { doc: null, diagnostics: diags };
  const extra = extraOf(top, KNOWN.top);
  const doc: WorkflowDoc = {
    name,
    ...(tier !== undefined ? { tier } : {}),
    ...(tolerance !== undefined ? { tolerance } : {}),
    inputs,
    nodes,
    edges,
    outputs,
    ...(extra ? { extra } : {}),
  };
  return { doc, diagnostics: [] };
}
