// What the editor opens with: a state, whether it is read-only (and why), and the notices
// that came with it. A share link becomes one here, for the first load and for a link pasted
// into the address bar later.
import type { Diagnostic } from "../doc/diagnostic";
import { emptyDoc } from "../doc/model";
import { autoLayout } from "../edit/autolayout";
import type { EditorState } from "../edit/state";
import type { OpenedLink } from "../share/link";

export interface Opened {
  state: EditorState;
  readOnly: string | null;
  notices: Diagnostic[];
}

export function blank(notices: Diagnostic[] = []): Opened {
  return { state: { doc: emptyDoc(), layout: {} }, readOnly: null, notices };
}

export function fromLink(link: OpenedLink): Opened {
  if (!link.ok) return blank(link.diagnostics);
  return {
    state: { doc: link.doc, layout: autoLayout(link.doc, link.layout) },
    readOnly: link.verified ? null : (link.diagnostics[0]?.message ?? "the link did not verify"),
    notices: link.diagnostics,
  };
}
