// The studio's engine-free checks against the engine's: each document below has one mistake
// (or none), and the set of W-codes the studio reports must equal what the native
// `rung check` reports for the same bytes. RUNG names the binary, as for the catalogue.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shippedCatalogue } from "../src/catalogue/shipped";
import { checkDocument } from "../src/doc/check";
import { STAGES } from "../src/doc/diagnostic";
import { parseWorkflow } from "../src/doc/parse";

const rung = process.env.RUNG ?? resolve(import.meta.dirname, "../../build/tools/rung/rung");
const example = readFileSync(resolve(import.meta.dirname, "../../examples/center.workflow.json"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "studio-agreement-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const concat =
  '{"format":"rung-workflow","version":1,"name":"c","tier":"debug","inputs":[{"name":"x","type":"f32[4]"}],' +
  '"nodes":[{"id":"c","op":"concat","attrs":{"axis":0}}],"edges":[{"from":"x","to":"c.xs"},{"from":"x","to":"c.xs"}],"outputs":[{"name":"y","from":"c"}]}';

const cases: [string, string][] = [
  ["the example", example],
  ["a variadic operand with two edges", concat],
  ["unknown op", example.replace('"op": "sub"', '"op": "subb"')],
  ["edge from nowhere", example.replace('{"from": "w", "to": "project.b"}', '{"from": "q", "to": "project.b"}')],
  ["edge to no operand", example.replace('"to": "project.b"', '"to": "project.z"')],
  ["edge to no node.operand", example.replace('"to": "project.b"', '"to": "project"')],
  ["edge from no result", example.replace('{"from": "w", "to": "project.b"}', '{"from": "mean.nope", "to": "project.b"}')],
  ["an operand connected twice", example.replace('{"from": "w", "to": "project.b"}', '{"from": "w", "to": "project.b"}, {"from": "w", "to": "project.b"}')],
  ["an operand not connected", example.replace(',\n    {"from": "w", "to": "project.b"}', "")],
  ["a node id twice", example.replace('{"id": "project", "op": "matmul"}', '{"id": "centered", "op": "matmul"}')],
  ["an input named like a node", example.replace('{"name": "w", "type": "f32[8, 4]"}', '{"name": "w", "type": "f32[8, 4]"}, {"name": "mean", "type": "f32[1]"}')],
  ["an output name twice", example.replace('"name": "column_means"', '"name": "y"')],
  ["no tier", example.replace('"tier": "debug",', "")],
  ["an unknown tier", example.replace('"tier": "debug"', '"tier": "quick"')],
  ["an unknown tolerance", example.replace('"tolerance": "exact"', '"tolerance": "tightest"')],
  ["a malformed type", example.replace('"f32[N, 8]"', '"f32[N, 8"')],
  ["an unknown dtype", example.replace('"f32[8, 4]"', '"f33[8, 4]"')],
  ["an unknown memory space", example.replace('"f32[8, 4]"', '"f32[8, 4] @gpu"')],
  ["an unknown attribute", example.replace('"keepdims": true', '"keepdims": true, "axis": 1')],
  ["a float in an int list", example.replace('"axes": [0]', '"axes": [0.5]')],
  ["an integral float in an int list", example.replace('"axes": [0]', '"axes": [0.0]')],
  ["an int past i64", example.replace('"axes": [0]', '"axes": [9223372036854775808]')],
  ["a string for a bool", example.replace('"keepdims": true', '"keepdims": "yes"')],
  ["a cycle", example.replace('{"from": "x", "to": "mean.x"}', '{"from": "project", "to": "mean.x"}')],
  ["version 2", example.replace('"version": 1', '"version": 2')],
  ["another format", example.replace('"rung-workflow"', '"rung-flow"')],
  ["no outputs", example.replace(/"outputs": \[[^\]]*\]/, '"outputs": []')],
  ["an empty name", example.replace('"name": "center_and_project"', '"name": ""')],
  ["nodes not a list", example.replace(/"nodes": \[[^\]]*\]/, '"nodes": {}')],
  ["attrs not an object", example.replace('"attrs": {"axes": [0], "keepdims": true}', '"attrs": [1]')],
  ["truncated JSON", example.slice(0, 200)],
  ["nested too deep", example.replace('"axes": [0]', `"axes": ${"[".repeat(70)}0${"]".repeat(70)}`)],
];

function engineCodes(text: string, n: number): string[] {
  const file = join(dir, `case${n}.workflow.json`);
  writeFileSync(file, text);
  let out = "";
  try {
    execFileSync(rung, ["check", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    out = `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
  return [...new Set([...out.matchAll(/error\[(W[0-9]{4})\]/g)].map((m) => m[1] as string))].sort();
}

function studioCodes(text: string): string[] {
  const r = parseWorkflow(text);
  const errors = (r.doc ? checkDocument(r.doc, shippedCatalogue) : r.diagnostics).filter((d) => d.severity === "error");
  const first = STAGES.find((s) => errors.some((d) => d.stage === s));
  const shown = r.doc ? errors.filter((d) => d.stage === first) : errors;
  return [...new Set(shown.map((d) => d.code))].sort();
}

describe("the studio's checks agree with `rung check`", () => {
  it.each(cases.map(([name, text], i) => [name, text, i] as const))("%s", (_name, text, i) => {
    expect(studioCodes(text)).toEqual(engineCodes(text, i));
  });
});
