// Files dropped on the canvas: each kind is opened or refused with a code, never ignored.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalDoc } from "../src/doc/model";
import { openText } from "../src/ui/openFile";

const example = readFileSync(resolve(import.meta.dirname, "../../examples/center.workflow.json"), "utf8");

describe("opening a dropped file", () => {
  it("a workflow .json opens with every box placed", async () => {
    const r = await openText("center.workflow.json", example);
    expect(r.notices).toEqual([]);
    const state = r.opened?.state;
    expect(state && JSON.parse(canonicalDoc(state.doc))).toEqual(JSON.parse(example));
    expect(Object.keys(state?.layout ?? {}).sort()).toEqual(["centered", "in:w", "in:x", "mean", "out:column_means", "out:y", "project"]);
  });
  it("a .json that is not a workflow opens nothing and says where, naming the file", async () => {
    const r = await openText("broken.json", example.slice(0, 100));
    expect(r.opened).toBeNull();
    expect(r.notices[0]).toMatchObject({ code: "W0001" });
    expect(r.notices[0]?.message).toMatch(/^broken\.json: not valid JSON/);
  });
  it.each([["model.rung"], ["model.keg"], ["notes.txt"]])("%s is S0001", async (name) => {
    const r = await openText(name, "x");
    expect(r.opened).toBeNull();
    expect(r.notices[0]?.code).toBe("S0001");
  });
});
