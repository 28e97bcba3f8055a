// The elkjs layout the "Lay out" button runs in its Worker (src/layout/elkGraph.ts), run here
// in node on the same graph: every box placed, each consumer right of its producers, the same
// positions twice, and a dangling edge (W0004) left out rather than failing the layout.
import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { elkGraph, layoutFromElk } from "../src/layout/elkGraph";
import type { WorkflowDoc } from "../src/doc/model";

const doc: WorkflowDoc = {
  name: "w",
  tier: "debug",
  inputs: [{ name: "x", type: "f32[4]" }],
  nodes: [
    { id: "a", op: "relu" },
    { id: "b", op: "neg" },
    { id: "c", op: "add" },
  ],
  edges: [
    { from: "x", to: "a.x" },
    { from: "a", to: "b.x" },
    { from: "a", to: "c.a" },
    { from: "b", to: "c.b" },
    { from: "ghost", to: "b.x" },
  ],
  outputs: [{ name: "y", from: "c" }],
};

describe("elk layout", () => {
  it("places every box left to right along the edges, deterministically", async () => {
    const elk = new ELK();
    const first = layoutFromElk(await elk.layout(elkGraph(doc, {})));
    const again = layoutFromElk(await elk.layout(elkGraph(doc, {})));
    expect(Object.keys(first).sort()).toEqual(["a", "b", "c", "in:x", "out:y"]);
    expect(again).toEqual(first);
    const x = (k: string) => first[k]!.x;
    expect(x("in:x")).toBeLessThan(x("a"));
    expect(x("a")).toBeLessThan(x("b"));
    expect(x("b")).toBeLessThan(x("c"));
    expect(x("c")).toBeLessThan(x("out:y"));
  });
  it("uses measured sizes: boxes do not overlap", async () => {
    const sizes = { a: { width: 400, height: 300 } };
    const l = layoutFromElk(await new ELK().layout(elkGraph(doc, sizes)));
    expect(l.b!.x).toBeGreaterThanOrEqual(l.a!.x + 400);
  });
});
