// The editor's pure pieces: the clipboard text, automatic placement, attribute fields, and
// the render mapping (every port and edge spelled as the document spells it).
import { describe, expect, it } from "vitest";
import { shippedCatalogue as catalogue } from "../src/catalogue/shipped";
import { catalogueFromListing } from "../src/catalogue/catalogue";
import { checkDocument } from "../src/doc/check";
import type { WorkflowDoc } from "../src/doc/model";
import { autoLayout, freeSlot } from "../src/edit/autolayout";
import { clipFromText, clipToText } from "../src/edit/clipboard";
import { readAttrText, showAttr } from "../src/ui/AttrField";
import { toFlow } from "../src/ui/toFlow";

const doc: WorkflowDoc = {
  name: "t",
  tier: "debug",
  inputs: [{ name: "x", type: "f32[4]" }],
  nodes: [
    { id: "s", op: "sum", attrs: { axes: [0n], keepdims: true } },
    { id: "r", op: "relu" },
    { id: "u", op: "mystery" },
  ],
  edges: [
    { from: "x", to: "r.x" },
    { from: "r", to: "s.x" },
    { from: "s", to: "u.a" },
    { from: "ghost", to: "r.x" },
  ],
  outputs: [{ name: "y", from: "u.out" }],
};

describe("clipboard text", () => {
  it("round-trips nodes, edges and positions, integers staying integers", () => {
    const clip = { nodes: doc.nodes.slice(0, 2), edges: [doc.edges[1] as WorkflowDoc["edges"][number]], positions: [{ x: 1, y: 2.5 }, { x: -3, y: 4 }] };
    const back = clipFromText(clipToText(clip));
    expect(back).toEqual(clip);
    expect(typeof (back?.nodes[0]?.attrs?.axes as unknown[])[0]).toBe("bigint");
  });
  it("anything else is not a clip", () => {
    expect(clipFromText("hello")).toBeNull();
    expect(clipFromText('{"kind":"other"}')).toBeNull();
  });
});

describe("placement", () => {
  it("puts inputs first, each node right of its producers, outputs last, keeping placed boxes", () => {
    const l = autoLayout(doc, { r: { x: 999, y: 7 } });
    expect(l["in:x"]).toEqual({ x: 0, y: 0 });
    expect(l.r).toEqual({ x: 999, y: 7 });
    expect((l.s?.x ?? 0) > (l["in:x"]?.x ?? 0) && (l.u?.x ?? 0) > (l.s?.x ?? 0)).toBe(true);
    expect(l["out:y"]?.x).toBeGreaterThan(l.u?.x ?? 0);
  });
  it("a new box goes where no box is", () => {
    expect(freeSlot({})).toEqual({ x: 0, y: 0 });
    expect(freeSlot({ a: { x: 0, y: 0 }, b: { x: 260, y: 10 } })).toEqual({ x: 520, y: 0 });
  });
});

describe("attribute fields read by the declared kind", () => {
  const spec = (kind: string) => ({ name: "a", kind, presence: "default", doc: "" }) as never;
  it.each([
    ["float", "1", 1],
    ["floats", "[1, 2.5]", [1, 2.5]],
    ["int", "3", 3n],
    ["ints", "[0, -1]", [0n, -1n]],
    ["bool", "true", true],
    ["dtype", "f16", "f16"],
    ["string", '"mean"', "mean"],
    ["string", "mean", "mean"],
    ["ints", "[0,", "[0,"],
    ["int", "", undefined],
  ])("%s field, %j", (kind, text, value) => {
    expect(readAttrText(text, spec(kind))).toEqual(value);
  });
  it("shows values as the canonical form writes them", () => {
    expect(showAttr(1, spec("float"))).toBe("1.0");
    expect(showAttr([0n, 2n], spec("ints"))).toBe("[0,2]");
    expect(showAttr("f32", spec("dtype"))).toBe("f32");
  });
});

describe("render mapping", () => {
  const diags = checkDocument(doc, catalogue);
  const flow = toFlow({ doc, layout: {} }, catalogue, diags, new Set(["r"]), false, {});
  it("draws every box, an unresolved op with the ports its edges name", () => {
    expect(flow.nodes.map((n) => n.id)).toEqual(["in:x", "s", "r", "u", "out:y"]);
    const u = flow.nodes.find((n) => n.id === "u")?.data as { operands: { name: string }[]; results: { name: string }[]; diagnostics: { code: string }[] };
    expect(u.operands.map((p) => p.name)).toEqual(["a"]);
    expect(u.results.map((p) => p.name)).toEqual(["out"]);
    expect(u.diagnostics.map((d) => d.code)).toEqual(["W0003"]);
    expect(flow.nodes.find((n) => n.id === "r")?.selected).toBe(true);
  });
  it("draws the edges it can, by the document's port names; a dangling one is left to the problems pane", () => {
    expect(flow.edges.map((e) => `${e.source}.${e.sourceHandle}->${e.target}.${e.targetHandle}`)).toEqual(["in:x.value->r.x", "r.y->s.x", "s.y->u.a", "u.out->out:y.value"]);
    expect(diags.find((d) => d.edgeIndex === 3)?.code).toBe("W0004");
  });
  it("marks an edge with its diagnostics", () => {
    const twice = { ...doc, edges: [...doc.edges.slice(0, 3), { from: "x", to: "r.x" }] };
    const f = toFlow({ doc: twice, layout: {} }, catalogue, checkDocument(twice, catalogue), new Set(), false, {});
    expect(f.edges.find((e) => e.id === "e3")).toMatchObject({ className: "edge-error", label: "W0007" });
  });
});

describe("the catalogue", () => {
  it("is the registry's listing, refused when it is not one", () => {
    expect(catalogue.ops.length).toBeGreaterThan(50);
    expect(catalogue.find("matmul")?.operands.map((o) => o.name)).toEqual(["a", "b"]);
    expect(() => catalogueFromListing({ count: 2, ops: [] })).toThrow(/rung ops --json/);
  });
  it("searches names first", () => {
    expect(catalogue.search("relu")[0]?.name).toBe("relu");
    expect(catalogue.search("soft").map((o) => o.name)).toContain("softmax");
  });
});
