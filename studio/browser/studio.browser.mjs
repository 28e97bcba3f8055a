// The studio in a real browser: Debian's chromium, headless, driven by playwright-core (no
// browser is downloaded). A workflow is drawn from nothing by user actions (search to add
// nodes, drag between ports found by id), undone and redone, copied and pasted, shared by
// URL and reopened in a fresh context to the same canonical bytes; a dropped file with an
// unknown op is drawn unresolved. Waits poll; no fixed sleeps. Screenshots go to OUT_DIR.
// Usage: node browser/studio.browser.mjs [OUT_DIR]   (dist/ must be built)
// With RUNG set (scripts/test-studio.sh) the app in STUDIO_APP (default dist/) is served by
// `$RUNG studio`; without it by scripts/serve.mjs.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

import { poll, startServer as startHarnessServer } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? resolve(here, "../test-output"));
mkdirSync(out, { recursive: true });
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";

let failures = 0;
let checks = 0;
function check(ok, what, detail = "") {
  ++checks;
  if (ok) console.log(`ok   ${what}`);
  else {
    ++failures;
    console.log(`FAIL ${what}${detail ? `\n     ${detail}` : ""}`);
  }
}

function startServer() {
  return startHarnessServer(resolve(process.env.STUDIO_APP ?? resolve(here, "../dist")));
}

const canonical = (page) => page.locator("#canonical-doc").textContent();
const contentId = (page) => page.locator("#content-id").textContent();
const shot = (page, name) => page.screenshot({ path: resolve(out, `${name}.png`) });

async function centre(page, selector) {
  const loc = page.locator(selector);
  await loc.waitFor({ state: "visible" });
  const b = await loc.boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}
async function dragPort(page, from, to) {
  const a = await centre(page, `[data-port="${from}"]`);
  const b = await centre(page, `[data-port="${to}"]`);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
}
async function addOpBySearch(page, query, expectedId) {
  await page.keyboard.press("Control+F");
  await page.locator("#find-input").fill(query);
  await page.locator(`[data-find-op="${query}"]`).waitFor();
  await page.locator("#find-input").press("Enter");
  await poll(() => canonical(page), (t) => t.includes(`"id":"${expectedId}"`));
  await fitView(page); // a new box may lie outside the view (and is then not rendered)
  await page.locator(`[data-node-id="${expectedId}"]`).waitFor();
}
async function fitView(page) {
  await page.locator(".react-flow__controls-fitview").click();
}
async function clickNode(page, id, modifiers = []) {
  await page.locator(`[data-node-id="${id}"] .op-title`).click({ modifiers });
}

const drawn =
  '{"edges":[{"from":"x","to":"relu.x"},{"from":"relu","to":"neg.x"}],"format":"rung-workflow","inputs":[{"name":"x","type":"f32[4]"}],' +
  '"name":"workflow","nodes":[{"id":"relu","op":"relu"},{"id":"neg","op":"neg"}],"outputs":[{"from":"neg","name":"y"}],"tier":"debug","version":1}';

const { url, child } = await startServer();
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] });
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);

  const banner = await page.locator("#engine-banner").textContent();
  check(/^View only: engine not loaded yet\./.test(banner ?? ""), "view-only banner names why nothing runs", banner);
  check((await page.locator("#problems").textContent())?.includes("W0009"), "an empty drawing has no tier: W0009");

  // Draw: x -> relu -> neg -> y, by the controls a user has.
  await page.locator("#tier-select").selectOption("debug");
  await page.locator("#input-name").fill("x");
  await page.locator("#input-type").fill("f32[4]");
  await page.locator("#add-input").click();
  await page.locator('[data-node-id="in:x"]').waitFor();
  check((await page.locator("#find").count()) === 0, "the find box is closed until Ctrl+F");
  await addOpBySearch(page, "relu", "relu");
  await addOpBySearch(page, "neg", "neg");
  await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } }); // nothing selected
  await page.locator("#output-name").fill("y");
  await page.locator("#add-output").click();
  await poll(() => canonical(page), (t) => t.includes('"name":"y"'));
  await fitView(page);
  await page.locator('[data-node-id="out:y"]').waitFor();
  await dragPort(page, "x", "relu.x");
  await dragPort(page, "relu.y", "neg.x");
  await dragPort(page, "neg.y", "out:y");
  const doc = await poll(() => canonical(page), (t) => t === drawn);
  check(doc === drawn, "drawn from nothing: the canonical document is the expected one", doc);
  check((await page.locator("#problems .problems-head").textContent())?.startsWith("no problems found"), "the drawing checks clean (without the engine)");
  check((await page.locator("#problems").textContent())?.includes("types and shapes unchecked"), "the problems pane says types are unchecked");
  await shot(page, "1-drawn");

  // Undo and redo, by the keyboard.
  await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("Control+Z");
  const undone = await poll(() => canonical(page), (t) => t !== drawn);
  check(undone.includes('"outputs":[{"from":"","name":"y"}]'), "Ctrl+Z undoes the last connection", undone);
  await page.keyboard.press("Control+Shift+Z");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "Ctrl+Shift+Z redoes it");
  await page.keyboard.press("Control+Z");
  await poll(() => canonical(page), (t) => t !== drawn);
  await page.keyboard.press("Control+Y");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "Ctrl+Y redoes too");

  // Ctrl+S saves the document (a download, readable JSON of the same values); Ctrl+A, Delete
  // empties the drawing in one step.
  const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Control+S")]);
  const saved = readFileSync(await download.path(), "utf8");
  check(download.suggestedFilename() === "workflow.workflow.json" && saved.includes("\n  ") && JSON.stringify(JSON.parse(saved)) === drawn, "Ctrl+S saves the document as indented JSON of the same values", saved);
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  const emptied = await poll(() => canonical(page), (t) => t !== drawn);
  check(emptied.includes('"edges":[],') && emptied.includes('"inputs":[],') && emptied.includes('"nodes":[],') && emptied.includes('"outputs":[],'), "Ctrl+A, Delete removes every box and edge", emptied);
  await page.keyboard.press("Control+Z");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "and one Ctrl+Z brings them all back");

  // Select an edge by its spelling and delete it; move a box by dragging (one undo step, and
  // the layout is not part of the document's bytes); find an existing node.
  // A level edge has a box of height 0, which playwright calls invisible: click its middle.
  const wire = await page.locator('[data-edge="relu->neg.x"]').boundingBox();
  await page.mouse.click(wire.x + wire.width / 2, wire.y + wire.height / 2);
  await page.keyboard.press("Delete");
  const cut = await poll(() => canonical(page), (t) => t !== drawn);
  check(!cut.includes('{"from":"relu","to":"neg.x"}') && cut.includes('"id":"neg"'), "a selected edge is deleted by Delete, its nodes stay", cut);
  await page.keyboard.press("Control+Z");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "and Ctrl+Z brings it back");
  const before = await page.locator('[data-node-id="relu"]').boundingBox();
  const grip = await centre(page, '[data-node-id="relu"] .op-title');
  await page.mouse.move(grip.x, grip.y);
  await page.mouse.down();
  await page.mouse.move(grip.x + 20, grip.y + 60, { steps: 4 });
  await page.mouse.move(grip.x + 40, grip.y + 150, { steps: 4 });
  await page.mouse.up();
  // The view's zoom is fitView's, so the box moves by about 150 px times the zoom.
  const moved = await poll(() => page.locator('[data-node-id="relu"]').boundingBox(), (b) => Math.abs(b.y - before.y) > 100);
  check(moved.y - before.y > 100 && (await canonical(page)) === drawn, "a dragged box moves, and the document's bytes do not change", JSON.stringify([before, moved]));
  await page.keyboard.press("Control+Z");
  const back = await poll(() => page.locator('[data-node-id="relu"]').boundingBox(), (b) => Math.abs(b.y - before.y) < 1);
  check(Math.abs(back.y - before.y) < 1 && Math.abs(back.x - before.x) < 1, "one Ctrl+Z puts the box back", JSON.stringify([before, back]));
  // Lay out (elkjs in a Worker): every box placed, the bytes unchanged, one undo step.
  await page.locator("#layout-run").click();
  const laidOut = await poll(() => page.locator("#layout-status").textContent(), (t) => /laid out|cancel|fail/.test(t ?? ""));
  check(/^laid out 4 boxes in [0-9]+ ms$/.test(laidOut ?? "") && (await canonical(page)) === drawn, "Lay out places the 4 boxes; the document's bytes do not change", laidOut);
  const laidBox = await poll(() => page.locator('[data-node-id="relu"]').boundingBox(), (b) => Math.abs(b.y - before.y) >= 1 || Math.abs(b.x - before.x) >= 1);
  check(Math.abs(laidBox.y - before.y) >= 1 || Math.abs(laidBox.x - before.x) >= 1, "the layout moves the boxes", JSON.stringify([before, laidBox]));
  const undoLabel = await page.locator("#undo").textContent();
  check(undoLabel === "undo lay out", "the layout is one undo step", undoLabel);
  await page.keyboard.press("Control+Z");
  const unlaid = await poll(() => page.locator('[data-node-id="relu"]').boundingBox(), (b) => Math.abs(b.y - before.y) < 1 && Math.abs(b.x - before.x) < 1);
  check(Math.abs(unlaid.y - before.y) < 1 && Math.abs(unlaid.x - before.x) < 1, "one Ctrl+Z undoes the layout", JSON.stringify([before, unlaid]));
  await page.keyboard.press("Control+F");
  await page.locator("#find-input").fill("ne");
  await page.locator('[data-find-node="neg"]').click();
  const picked = await poll(() => page.locator('.react-flow__node.selected [data-node-id="neg"]').count(), (n) => n === 1);
  check(picked === 1 && (await page.locator("#find").count()) === 0, "Ctrl+F finds an existing node and selects it");

  // Copy and paste two connected nodes; undo the paste in one step; delete a pasted pair.
  await clickNode(page, "relu");
  await clickNode(page, "neg", ["Shift"]);
  await page.keyboard.press("Control+C");
  await page.keyboard.press("Control+V");
  const pasted = await poll(() => canonical(page), (t) => t.includes('"id":"neg_2"'));
  check(pasted.includes('{"from":"relu_2","to":"neg_2.x"}') && pasted.includes('{"id":"relu_2","op":"relu"}'), "Ctrl+C, Ctrl+V pastes the nodes with the edge between them", pasted);
  await page.locator('[data-node-id="neg_2"]').waitFor();
  await shot(page, "2-pasted");
  await page.keyboard.press("Control+Z");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "one Ctrl+Z undoes the whole paste");
  await page.keyboard.press("Control+V");
  await poll(() => canonical(page), (t) => t.includes('"id":"neg_2"'));
  await page.locator('[data-node-id="neg_2"]').waitFor();
  await page.keyboard.press("Delete");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "Delete removes the selected (pasted) nodes and their edge");

  // An attribute edit shows W0006 when the value does not fit, and the find box finds nodes.
  await addOpBySearch(page, "sum", "sum");
  await page.locator('[data-attr="sum.axes"]').fill("[0.5]");
  await page.locator('[data-attr="sum.axes"]').press("Enter");
  const w6 = await poll(() => page.locator('[data-node-id="sum"] [data-diag="W0006"]').textContent().catch(() => ""), (t) => t.length > 0);
  check(/attribute "axes" must be ints/.test(w6), "an attribute of the wrong kind is W0006 on its node", w6);
  check((await canonical(page)).includes('"attrs":{"axes":[0.5]}'), "and the value stays in the document as typed");
  await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } }); // leave the field: Ctrl+Z is the document's again
  await page.keyboard.press("Control+Z");
  await page.locator('[data-node-id="sum"] [data-diag="W0006"]').waitFor({ state: "detached" });
  await page.keyboard.press("Control+Z");
  check((await poll(() => canonical(page), (t) => t === drawn)) === drawn, "two undos take the attribute and the node away");

  // Share: the link opened in a fresh context reproduces the same bytes and id.
  const id = await contentId(page);
  await page.locator("#share").click();
  const link = await poll(() => page.locator("#share-link").inputValue().catch(() => ""), (v) => v.includes("#w=1."));
  check(link.includes(`#w=1.${id}.`), "the share link carries the content id", link);
  const fresh = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const other = await fresh.newPage();
  other.on("pageerror", (e) => errors.push(String(e)));
  await other.goto(link);
  check((await poll(() => canonical(other), (t) => t === drawn)) === drawn, "the link opens to the same canonical bytes in a fresh context");
  check((await contentId(other)) === id, "and to the same content id");
  check((await other.locator("#read-only-banner").count()) === 0, "a verified link opens editable");
  await other.locator('[data-node-id="neg"]').waitFor();
  await shot(other, "3-shared");
  const tampered = link.replace(`#w=1.${id}.`, `#w=1.${"0".repeat(64)}.`);
  await other.goto("about:blank");
  await other.goto(tampered);
  const ro = await poll(() => other.locator("#read-only-banner").textContent().catch(() => ""), (t) => t.length > 0);
  check(/does not hash to the link's content id/.test(ro), "a link whose id does not match opens read-only, warned", ro);
  await shot(other, "4-tampered");
  await other.keyboard.press("Control+F");
  await other.locator("#find-input").fill("relu");
  await other.locator("#find-input").press("Enter");
  // The find box closes in the same render as an add would land: wait for it, then read.
  await poll(() => other.locator("#find").count(), (n) => n === 0);
  const afterAdd = await canonical(other);
  await other.locator('[data-node-id="neg"] .op-title').click();
  await poll(() => other.locator(".react-flow__node.selected").count(), (n) => n === 1);
  await other.keyboard.press("Delete");
  await poll(() => other.locator(".react-flow__node.selected").count(), (n) => n === 0); // the selection clears with the delete
  check(afterAdd === drawn && (await canonical(other)) === drawn, "read-only: adding and deleting change nothing");
  await other.locator("#leave-read-only").click();
  await other.locator('[data-node-id="neg"] .op-title').click();
  await other.keyboard.press("Delete");
  check(!(await poll(() => canonical(other), (t) => t !== drawn)).includes('"id":"neg"'), "after Edit a copy, Delete deletes");
  await fresh.close();

  // A dropped .json with an unknown op: drawn unresolved with W0003 and the suggestion.
  const bad = drawn.replace('"op":"neg"', '"op":"negg"');
  const dt = await page.evaluateHandle((text) => {
    const d = new DataTransfer();
    d.items.add(new File([text], "typo.workflow.json", { type: "application/json" }));
    return d;
  }, bad);
  await page.locator("#canvas").dispatchEvent("drop", { dataTransfer: dt });
  const diag = await poll(() => page.locator('[data-node-id="neg"] [data-diag="W0003"]').textContent().catch(() => ""), (t) => t.length > 0);
  check(/unknown op "negg".*did you mean "neg"\?/.test(diag), "a dropped file's unknown op is drawn unresolved with W0003 and a suggestion", diag);
  check((await page.locator('[data-port="neg.x"]').count()) === 1, "the unresolved node keeps the ports its edges name");
  await shot(page, "5-unresolved");
  const rungDt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File(["fn f() {}"], "model.rung"));
    return d;
  });
  await page.locator("#canvas").dispatchEvent("drop", { dataTransfer: rungDt });
  const s1 = await poll(() => page.locator('#problems [data-problem="S0001"]').textContent().catch(() => ""), (t) => t.length > 0);
  check(/needs the engine/.test(s1), "a dropped .rung says it needs the engine (S0001)", s1);

  check(errors.length === 0, "no uncaught page errors", errors.join("\n"));
} finally {
  await browser.close();
  child.kill();
}
console.log(`${checks - failures}/${checks} checks passed; screenshots in ${out}`);
process.exit(failures === 0 ? 0 : 1);
