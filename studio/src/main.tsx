// Entry: open what the URL fragment holds (a share link) or an empty drawing, with the engine
// in the state it is really in. Today that is view-only: the wasm engine is not wired yet.
import "@xyflow/react/dist/style.css";
import "./styles.css";
import { createRoot } from "react-dom/client";
import { shippedCatalogue } from "./catalogue/shipped";
import { viewOnlyEngine } from "./engine/engine";
import { openFragment } from "./share/link";
import { App } from "./ui/App";
import { type Opened, blank, fromLink } from "./ui/opened";

async function initial(): Promise<Opened> {
  const link = await openFragment(location.hash);
  return link ? fromLink(link) : blank();
}

const engine = viewOnlyEngine("engine not loaded yet", shippedCatalogue);
const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
void initial().then((opened) => createRoot(root).render(<App engine={engine} initial={opened} />));
