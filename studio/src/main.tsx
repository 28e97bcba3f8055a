// Entry: open what the URL fragment holds (a share link) or an empty drawing, with the engine
// in the state it is really in. Today that is view-only: the wasm engine is not wired yet.
import "@xyflow/react/dist/style.css";
import "./styles.css";
import { createRoot } from "react-dom/client";
import { shippedCatalogue } from "./catalogue/shipped";
import { emptyDoc } from "./doc/model";
import { autoLayout } from "./edit/autolayout";
import { viewOnlyEngine } from "./engine/engine";
import { openFragment } from "./share/link";
import { App, type Opened } from "./ui/App";

async function initial(): Promise<Opened> {
  const link = await openFragment(location.hash);
  const blank: Opened = { state: { doc: emptyDoc(), layout: {} }, readOnly: null, notices: [] };
  if (!link) return blank;
  if (!link.ok) return { ...blank, notices: link.diagnostics };
  return {
    state: { doc: link.doc, layout: autoLayout(link.doc, link.layout) },
    readOnly: link.verified ? null : (link.diagnostics[0]?.message ?? "the link did not verify"),
    notices: link.diagnostics,
  };
}

const engine = viewOnlyEngine("engine not loaded yet", shippedCatalogue);
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
void initial().then((opened) => createRoot(root).render(<App engine={engine} initial={opened} />));
