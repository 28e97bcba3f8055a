// Share by URL: `#w=1.<content id>.<canonical document, deflate-raw, base64url>`, and the
// layout in a separate, unhashed part `&l=<layout JSON, deflate-raw, base64url>`. The fragment
// never reaches a server. Opening checks the id: a link whose bytes do not hash to it, or
// whose document is not in canonical form, opens read-only with S0003.
import type { Diagnostic } from "../doc/diagnostic";
import { canonicalDoc, type WorkflowDoc } from "../doc/model";
import { parseWorkflow } from "../doc/parse";
import type { EditorState, Layout, Pos } from "../edit/state";
import { deflateRaw, fromBase64Url, inflateRaw, toBase64Url } from "./codec";
import { contentId } from "./contentId";

export const LINK_VERSION = "1";
export const LINK_SIZE_LIMIT = 8192; // past this, the studio offers a file instead

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

export async function shareFragment(state: EditorState): Promise<{ fragment: string; id: string }> {
  const canonical = canonicalDoc(state.doc);
  const id = contentId(canonical);
  const payload = toBase64Url(await deflateRaw(utf8.encode(canonical)));
  const keys = Object.keys(state.layout).sort();
  const layout = JSON.stringify(Object.fromEntries(keys.map((k) => [k, state.layout[k]])));
  return { fragment: `#w=${LINK_VERSION}.${id}.${payload}&l=${toBase64Url(await deflateRaw(utf8.encode(layout)))}`, id };
}

export type OpenedLink =
  | { ok: true; doc: WorkflowDoc; layout: Layout; id: string; verified: boolean; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

const bad = (message: string): OpenedLink => ({ ok: false, diagnostics: [{ code: "S0002", severity: "error", message }] });

async function inflateText(b64: string): Promise<string | null> {
  const bytes = fromBase64Url(b64);
  if (!bytes) return null;
  try {
    return fromUtf8.decode(await inflateRaw(bytes));
  } catch {
    return null; // not deflate-raw, or not UTF-8: the caller says which part
  }
}

function readLayout(text: string): Layout | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
    const out: Record<string, Pos> = {};
    for (const [k, p] of Object.entries(v as Record<string, unknown>)) {
      const pos = p as Partial<Pos> | null;
      if (typeof pos?.x !== "number" || typeof pos.y !== "number") return null;
      out[k] = { x: pos.x, y: pos.y };
    }
    return out;
  } catch {
    return null;
  }
}

// hash: location.hash ("#w=..."), or null when it holds no workflow.
export async function openFragment(hash: string): Promise<OpenedLink | null> {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const w = params.get("w");
  if (w === null) return null;
  const m = /^([^.]*)\.([^.]*)\.([^.]*)$/.exec(w);
  if (!m) return bad("the link's w= part is not VERSION.ID.PAYLOAD");
  const [, version, id, payload] = m as unknown as [string, string, string, string];
  if (version !== LINK_VERSION) return bad(`share link version ${version} (this studio reads version ${LINK_VERSION})`);
  if (!/^[0-9a-f]{64}$/.test(id)) return bad("the link's content id is not 64 hex digits (SHA3-256)");
  const canonical = await inflateText(payload);
  if (canonical === null) return bad("the link's document is not deflate-raw UTF-8 in base64url (cut short when copied?)");
  const l = params.get("l");
  const layoutText = l === null ? "{}" : await inflateText(l);
  const layout = layoutText === null ? null : readLayout(layoutText);
  if (layout === null) return bad("the link's layout part (l=) is damaged");
  const parsed = parseWorkflow(canonical);
  if (!parsed.doc) return { ok: false, diagnostics: parsed.diagnostics };
  const actual = contentId(canonical);
  const diagnostics: Diagnostic[] = [];
  let verified = true;
  if (actual !== id) {
    verified = false;
    diagnostics.push({ code: "S0003", severity: "warning", message: `the document does not hash to the link's content id (link ${id.slice(0, 12)}…, document ${actual.slice(0, 12)}…): opened read-only` });
  } else if (canonicalDoc(parsed.doc) !== canonical) {
    verified = false;
    diagnostics.push({ code: "S0003", severity: "warning", message: "the link's document is not in canonical form, so its id names other bytes than the studio would share: opened read-only" });
  }
  return { ok: true, doc: parsed.doc, layout, id: actual, verified, diagnostics };
}
