// The command log: random gestures undo back to the original canonical bytes and layout,
// redo forward to the same final bytes, and a 40-node paste is one undo step.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { shippedCatalogue as catalogue } from "../src/catalogue/shipped";
import { canonicalDoc } from "../src/doc/model";
import { parseWorkflow } from "../src/doc/parse";
import type { Command } from "../src/edit/commands";
import * as g from "../src/edit/gestures";
import { type Session, perform, redo, startSession, undo } from "../src/edit/history";
import { type EditorState, inputKey, outputKey } from "../src/edit/state";

const text = readFileSync(resolve(import.meta.dirname, "../../examples/center.workflow.json"), "utf8");
const parsed = parseWorkflow(text);
if (!parsed.doc) throw new Error("example does not open");
const layout = Object.fromEntries(parsed.doc.nodes.map((n, i) => [n.id, { x: 200 * i, y: 0 }]));
const start: EditorState = { doc: parsed.doc, layout };

const snapshot = (s: EditorState) => `${canonicalDoc(s.doc)}|${JSON.stringify(Object.entries(s.layout).sort())}`;

// A small deterministic generator (xorshift32), so a failing seed replays.
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

function randomGesture(s: EditorState, r: () => number): [string, Command[]] {
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(r() * xs.length)];
  const nodes = s.doc.nodes;
  const sources = [...s.doc.inputs.map((i) => i.name), ...nodes.map((n) => n.id)];
  const keys = [...nodes.map((n) => n.id), ...s.doc.inputs.map((i) => inputKey(i.name)), ...s.doc.outputs.map((o) => outputKey(o.name))];
  const pos = { x: Math.round(r() * 1000), y: Math.round(r() * 1000) };
  switch (Math.floor(r() * 10)) {
    case 0:
      return ["add node", g.addNode(s, pick(catalogue.ops)?.name ?? "relu", pos)];
    case 1: {
      const n = pick(nodes);
      const operand = pick(catalogue.find(n?.op ?? "")?.operands ?? []);
      const from = pick(sources);
      return ["connect", n && operand && from ? g.connect(s, catalogue, from, `${n.id}.${operand.name}`) : []];
    }
    case 2:
      return ["disconnect", s.doc.edges.length ? g.disconnect(Math.floor(r() * s.doc.edges.length)) : []];
    case 3: {
      const chosen = new Set(keys.filter(() => r() < 0.3));
      return ["delete", g.deleteKeys(s, chosen)];
    }
    case 4: {
      const n = pick(nodes);
      const values = [1n, -3n, 0.5, -0, true, "x", [0n, 1n], undefined];
      return ["set attribute", n ? g.setAttr(s, n.id, pick(["axes", "keepdims", "scale"]) ?? "axes", pick(values)) : []];
    }
    case 5: {
      const k = pick(keys);
      return ["move", k ? [{ kind: "move", key: k, pos }] : []];
    }
    case 6: {
      const clip = g.copy(s, new Set(nodes.filter(() => r() < 0.5).map((n) => n.id)));
      return ["paste", g.paste(s, clip, { x: 40, y: 40 })];
    }
    case 7:
      return ["add input", g.addInput(s, "x", "f32[4]", pos)];
    case 8: {
      const from = pick(sources);
      return ["add output", from ? g.addOutput(s, "y", from, pos) : []];
    }
    default:
      return ["set tier", [{ kind: "setField", field: "tier", value: pick(["debug", "prod", undefined]) }]];
  }
}

describe("command log", () => {
  it("random gesture sequences undo back to the original bytes and redo to the same end", () => {
    for (let seed = 1; seed <= 200; ++seed) {
      const r = rng(seed);
      let s: Session = startSession(start);
      const steps = 1 + Math.floor(r() * 40);
      for (let i = 0; i < steps; ++i) {
        const [label, cmds] = randomGesture(s.state, r);
        s = perform(s, label, cmds);
      }
      const end = snapshot(s.state);
      const entries = s.past.length;
      for (let i = 0; i < entries; ++i) s = undo(s);
      expect(snapshot(s.state), `seed ${seed}`).toBe(snapshot(start));
      for (let i = 0; i < entries; ++i) s = redo(s);
      expect(snapshot(s.state), `seed ${seed}`).toBe(end);
    }
  });

  it("undo of a 40-node paste is one step", () => {
    let s = startSession(start);
    for (let i = 0; i < 40; ++i) s = perform(s, "add node", g.addNode(s.state, "relu", { x: i * 10, y: 300 }));
    const relus = new Set(s.state.doc.nodes.filter((n) => n.op === "relu").map((n) => n.id));
    for (let i = 1; i < 40; ++i) s = perform(s, "connect", g.connect(s.state, catalogue, i === 1 ? "x" : `relu_${i}`, `relu_${i + 1}.x`));
    const before = snapshot(s.state);
    const clip = g.copy(s.state, relus);
    expect(clip.nodes).toHaveLength(40);
    expect(clip.edges).toHaveLength(38); // the edge from input x stays behind
    s = perform(s, "paste", g.paste(s.state, clip, { x: 0, y: 200 }));
    expect(s.state.doc.nodes).toHaveLength(83);
    expect(s.state.doc.nodes.filter((n) => n.op === "relu")).toHaveLength(80);
    expect(new Set(s.state.doc.nodes.map((n) => n.id)).size).toBe(83);
    s = undo(s);
    expect(snapshot(s.state)).toBe(before);
  });

  it("connecting an operand that takes one edge replaces its edge, in one step", () => {
    let s = startSession(start);
    s = perform(s, "connect", g.connect(s.state, catalogue, "w", "centered.a"));
    expect(s.state.doc.edges.filter((e) => e.to === "centered.a").map((e) => e.from)).toEqual(["w"]);
    s = undo(s);
    expect(snapshot(s.state)).toBe(snapshot(start));
  });

  it("deleting a node takes its edges; undo puts them back where they were", () => {
    let s = startSession(start);
    s = perform(s, "delete", g.deleteKeys(s.state, new Set(["mean"])));
    expect(s.state.doc.edges.some((e) => e.from === "mean" || e.to.startsWith("mean."))).toBe(false);
    expect(s.past).toHaveLength(1);
    s = undo(s);
    expect(snapshot(s.state)).toBe(snapshot(start));
  });

  it("a new gesture after undo drops the redo branch", () => {
    let s = startSession(start);
    s = perform(s, "add", g.addNode(s.state, "relu", { x: 0, y: 0 }));
    s = undo(s);
    s = perform(s, "add", g.addNode(s.state, "neg", { x: 0, y: 0 }));
    expect(s.future).toHaveLength(0);
    expect(redo(s)).toBe(s);
  });
});
