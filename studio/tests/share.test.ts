// Share links: round trip to the same bytes, id and layout; tampering is caught.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalDoc } from "../src/doc/model";
import { parseWorkflow } from "../src/doc/parse";
import { deflateRaw, fromBase64Url, toBase64Url } from "../src/share/codec";
import { contentId } from "../src/share/contentId";
import { openFragment, shareFragment } from "../src/share/link";

const text = readFileSync(resolve(import.meta.dirname, "../../examples/center.workflow.json"), "utf8");
const parsed = parseWorkflow(text);
if (!parsed.doc) throw new Error("example does not open");
const state = { doc: parsed.doc, layout: { mean: { x: 10, y: 20.5 }, "in:x": { x: -5, y: 0 } } };

describe("share links", () => {
  it("SHA3-256 is the standard one", () => {
    expect(contentId("")).toBe("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    expect(contentId("abc")).toBe("3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
  });
  it("round-trip to the same canonical bytes, content id and layout", async () => {
    const { fragment, id } = await shareFragment(state);
    expect(fragment).toMatch(/^#w=1\.[0-9a-f]{64}\.[A-Za-z0-9_-]+&l=[A-Za-z0-9_-]+$/);
    expect(id).toBe(contentId(canonicalDoc(state.doc)));
    const opened = await openFragment(fragment);
    expect(opened).toMatchObject({ ok: true, verified: true, id, diagnostics: [] });
    if (!opened?.ok) throw new Error("did not open");
    expect(canonicalDoc(opened.doc)).toBe(canonicalDoc(state.doc));
    expect(opened.layout).toEqual(state.layout);
  });
  it("a changed id or a non-canonical payload opens read-only with S0003", async () => {
    const { fragment, id } = await shareFragment(state);
    const other = await openFragment(fragment.replace(id, "0".repeat(64)));
    expect(other).toMatchObject({ ok: true, verified: false, diagnostics: [{ code: "S0003" }] });
    const spaced = toBase64Url(await deflateRaw(new TextEncoder().encode(text)));
    const nonCanonical = await openFragment(`#w=1.${contentId(text)}.${spaced}`);
    expect(nonCanonical).toMatchObject({ ok: true, verified: false, diagnostics: [{ code: "S0003" }] });
  });
  it.each([
    ["#w=2.x.y", /version 2/],
    ["#w=1.abc.def", /64 hex/],
    [`#w=1.${"a".repeat(64)}.!!!`, /deflate-raw/],
    [`#w=1.${"a".repeat(64)}.AAAA`, /deflate-raw/],
    ["#w=1.nope", /VERSION.ID.PAYLOAD/],
  ])("%s is S0002, not an exception", async (hash, why) => {
    const opened = await openFragment(hash);
    expect(opened).toMatchObject({ ok: false, diagnostics: [{ code: "S0002" }] });
    expect(opened?.diagnostics[0]?.message).toMatch(why);
  });
  it("a fragment without w= is no workflow", async () => {
    expect(await openFragment("#section")).toBeNull();
  });
  it("base64url round-trips every byte", () => {
    const all = Uint8Array.from({ length: 256 * 3 + 1 }, (_, i) => (i * 7) & 255);
    expect(fromBase64Url(toBase64Url(all))).toEqual(all);
  });
});
