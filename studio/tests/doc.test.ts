// The document model: every example of the repository opens, checks clean and keeps its
// values through the canonical form; malformed input gives coded, located diagnostics.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { shippedCatalogue } from "../src/catalogue/shipped";
import { canonicalFloat, canonicalJson } from "../src/doc/canonical";
import { checkDocument } from "../src/doc/check";
import { parseJson } from "../src/doc/json";
import { canonicalDoc } from "../src/doc/model";
import { parseWorkflow } from "../src/doc/parse";

const example = readFileSync(resolve(import.meta.dirname, "../../examples/center.workflow.json"), "utf8");

function open(text: string) {
  const r = parseWorkflow(text);
  if (!r.doc) throw new Error(`did not open: ${JSON.stringify(r.diagnostics)}`);
  return r.doc;
}
const codes = (text: string) => {
  const r = parseWorkflow(text);
  return r.doc ? checkDocument(r.doc, shippedCatalogue).map((d) => d.code) : r.diagnostics.map((d) => d.code);
};
const withNodes = (nodes: string, edges: string, outputs = '[{"name":"y","from":"n"}]') =>
  `{"format":"rung-workflow","version":1,"name":"t","tier":"debug","inputs":[{"name":"x","type":"f32[4]"}],"nodes":${nodes},"edges":${edges},"outputs":${outputs}}`;

describe("the repository's example", () => {
  it("opens and checks clean", () => {
    expect(checkDocument(open(example), shippedCatalogue)).toEqual([]);
  });
  it("has a canonical form that is a fixed point and keeps every value", () => {
    const c = canonicalDoc(open(example));
    expect(canonicalDoc(open(c))).toBe(c);
    expect(JSON.parse(c)).toEqual(JSON.parse(example));
    expect(c).not.toMatch(/\s(?=(?:[^"]*"[^"]*")*[^"]*$)/); // no whitespace outside strings
    expect(c.startsWith('{"edges":[{"from":"x","to":"mean.x"}')).toBe(true);
  });
});

describe("canonical JSON", () => {
  it("sorts keys by UTF-16 code units and escapes as JSON.stringify", () => {
    const v = parseJson('{"b":1,"a":{"z":[3,2],"é":"\\u0001","Z":null},"A":true}');
    expect(v.ok && canonicalJson(v.value)).toBe('{"A":true,"a":{"Z":null,"z":[3,2],"é":"\\u0001"},"b":1}');
  });
  it("keeps integers exact and floats recognisably floats", () => {
    const v = parseJson("[9223372036854775807, -0, 1.0, -0.0, 0.1, 1e21, 1E-7, 2.50]");
    expect(v.ok && canonicalJson(v.value)).toBe("[9223372036854775807,0,1.0,-0.0,0.1,1e+21,1e-7,2.5]");
  });
  it("writes the shortest float text that reads back to the same binary64", () => {
    for (const x of [0.1 + 0.2, 5e-324, 1.7976931348623157e308, 123456789.125, -(2 ** -1074)]) {
      const s = canonicalFloat(x);
      expect(Number(s)).toBe(x);
      expect(s.replace(/\.0$/, "").length).toBeLessThanOrEqual(String(x).length);
    }
  });
  it("keeps a __proto__ key as data", () => {
    const v = parseJson('{"__proto__":{"x":1}}');
    expect(v.ok && canonicalJson(v.value)).toBe('{"__proto__":{"x":1}}');
  });
});

describe("malformed text is a located W0001 or W0002, never an exception", () => {
  it.each([
    ["", "W0001"],
    ["{", "W0001"],
    ['{"a":1,}', "W0001"],
    ["[1 2]", "W0001"],
    ["1e999", "W0001"],
    ['"\u0001"', "W0001"],
    ["[".repeat(65) + "]".repeat(65), "W0001"],
    ['{"a":1,"a":2}', "W0002"],
  ])("%j -> %s", (text, code) => {
    const r = parseWorkflow(text);
    expect(r.doc).toBeNull();
    expect(r.diagnostics[0]?.code).toBe(code);
    expect(r.diagnostics[0]?.at).toBeDefined();
  });
  it("says at which line and column reading stopped", () => {
    const r = parseWorkflow('{\n  "format": "rung-workflow",\n  "version": 1,\n  oops\n}');
    expect(r.diagnostics[0]).toMatchObject({ code: "W0001", at: { line: 4, column: 3 } });
  });
  it("checks format and version before anything else", () => {
    expect(parseWorkflow('{"format":"x","version":1}').diagnostics[0]).toMatchObject({ code: "W0002", pointer: "/format" });
    expect(parseWorkflow('{"format":"rung-workflow","version":2}').diagnostics[0]?.message).toMatch(/unsupported workflow version 2/);
    expect(parseWorkflow('{"format":"rung-workflow","version":"1"}').diagnostics[0]).toMatchObject({ code: "W0002", pointer: "/version" });
  });
  it("locates a mistyped field by pointer, line and column", () => {
    const r = parseWorkflow(example.replace('"op": "sub"', '"op": 7'));
    expect(r.doc).toBeNull();
    expect(r.diagnostics[0]).toMatchObject({ code: "W0002", pointer: "/nodes/1/op", at: { line: 13 } });
  });
});

describe("a document with mistakes still opens, each mistake on its node or edge", () => {
  it("unknown op: W0003 on the node, with the engine's suggestion", () => {
    const d = checkDocument(open(withNodes('[{"id":"n","op":"reluu"}]', '[{"from":"x","to":"n.x"}]')), shippedCatalogue);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ code: "W0003", nodeId: "n", pointer: "/nodes/0/op", notes: ['did you mean "relu"?'] });
  });
  it("dangling edges: W0004 on the edge", () => {
    const d = checkDocument(open(withNodes('[{"id":"n","op":"relu"}]', '[{"from":"q","to":"n.x"},{"from":"x","to":"n.nope"},{"from":"x","to":"m.x"}]')), shippedCatalogue);
    expect(d.filter((x) => x.code === "W0004").map((x) => x.edgeIndex)).toEqual([0, 1, 2]);
  });
  it.each([
    ['[{"id":"n","op":"relu"}]', "[]", undefined, "W0007"],
    ['[{"id":"n","op":"relu"}]', '[{"from":"x","to":"n.x"},{"from":"x","to":"n.x"}]', undefined, "W0007"],
    ['[{"id":"n","op":"relu"},{"id":"n","op":"neg"}]', '[{"from":"x","to":"n.x"}]', undefined, "W0008"],
    ['[{"id":"x","op":"relu"}]', '[{"from":"x","to":"x.x"}]', '[{"name":"y","from":"x"}]', "W0008"],
    ['[{"id":"n","op":"relu"},{"id":"m","op":"relu"}]', '[{"from":"m","to":"n.x"},{"from":"n","to":"m.x"}]', undefined, "W0005"],
    ['[{"id":"n","op":"relu","attrs":{"axis":1}}]', '[{"from":"x","to":"n.x"}]', undefined, "W0006"],
    ['[{"id":"n","op":"sum","attrs":{"axes":[1.5]}}]', '[{"from":"x","to":"n.x"}]', undefined, "W0006"],
    ['[{"id":"n","op":"cast"}]', '[{"from":"x","to":"n.x"}]', undefined, "W0006"],
    ['[{"id":"n","op":"relu"}]', '[{"from":"x","to":"n.x"}]', "[]", "W0002"],
  ])("%s %s -> %s", (nodes, edges, outputs, code) => {
    expect(codes(withNodes(nodes, edges, outputs))).toContain(code);
  });
  it("an output added before its source is W0004 on the output", () => {
    const d = checkDocument(open(withNodes('[{"id":"n","op":"relu"}]', '[{"from":"x","to":"n.x"}]', '[{"name":"y","from":""}]')), shippedCatalogue);
    expect(d).toEqual([expect.objectContaining({ code: "W0004", pointer: "/outputs/0/from", message: 'output "y" is not connected to anything' })]);
  });
  it("a variadic operand takes several edges", () => {
    expect(codes(withNodes('[{"id":"n","op":"concat"}]', '[{"from":"x","to":"n.xs"},{"from":"x","to":"n.xs"}]'))).toEqual([]);
  });
  it("no tier: W0009 (the studio never picks one); a bad type string: W0010", () => {
    expect(codes(example.replace('"tier": "debug",', ""))).toEqual(["W0009"]);
    expect(codes(example.replace("f32[N, 8]", "f32[N, 8"))).toEqual(["W0010"]);
    expect(codes(example.replace("f32[N, 8]", "f33[N]"))).toEqual(["W0010"]);
  });
  it("keeps fields the format does not name", () => {
    const doc = open(example.replace('"name": "center_and_project"', '"name": "c", "layout_hint": {"b": 1, "a": [2]}'));
    expect(canonicalDoc(doc)).toContain('"layout_hint":{"a":[2],"b":1}');
  });
});
