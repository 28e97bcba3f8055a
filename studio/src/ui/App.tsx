// The editor: the command log's session, the canvas drawn from it, and the shortcuts, the
// clipboard and file drops turned into gestures. Every change goes through perform().
import { type Connection, type EdgeChange, type NodeChange, ReactFlow, ReactFlowProvider, Background, Controls, MiniMap, useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { prettyJson } from "../doc/canonical";
import { checkDocument } from "../doc/check";
import type { Diagnostic } from "../doc/diagnostic";
import type { JsonValue } from "../doc/json";
import { canonicalDoc, docToJson } from "../doc/model";
import { applyAll, type Command } from "../edit/commands";
import { freeSlot } from "../edit/autolayout";
import { clipFromText, clipToText } from "../edit/clipboard";
import * as g from "../edit/gestures";
import { type Session, perform, redo, startSession, undo } from "../edit/history";
import { type EditorState, type Pos, inputKey, outputKey } from "../edit/state";
import type { Engine } from "../engine/engine";
import { contentId } from "../share/contentId";
import { LINK_SIZE_LIMIT, openFragment, shareFragment } from "../share/link";
import { Banner } from "./Banner";
import { EditContext, type EditActions } from "./editContext";
import { Find } from "./Find";
import { LayoutControl } from "./LayoutControl";
import { IoNode } from "./IoNode";
import { OpNode } from "./OpNode";
import { Problems } from "./Problems";
import { Toolbar } from "./Toolbar";
import { toFlow } from "./toFlow";
import { openDroppedFile } from "./openFile";
import { type Opened, fromLink } from "./opened";
import { useShortcuts } from "./useShortcuts";

const nodeTypes = { op: OpNode, io: IoNode };
const MINIMAP_MAX_NODES = 300;

function Studio({ engine, initial }: { engine: Engine; initial: Opened }) {
  const catalogue = engine.catalogue;
  const [session, setSession] = useState<Session>(() => startSession(initial.state));
  const [readOnly, setReadOnly] = useState<string | null>(initial.readOnly);
  const [notices, setNotices] = useState<Diagnostic[]>(initial.notices);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dragging, setDragging] = useState<Record<string, Pos>>({});
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  const [findOpen, setFindOpen] = useState(false);
  const [share, setShare] = useState<{ url: string; size: number } | null>(null);
  const rf = useReactFlow();
  const sessionRef = useRef(session);
  sessionRef.current = session;
  const state = session.state;

  const diagnostics = useMemo(() => checkDocument(state.doc, catalogue), [state.doc, catalogue]);
  const canonical = useMemo(() => canonicalDoc(state.doc), [state.doc]);
  const id = useMemo(() => contentId(canonical), [canonical]);

  const run = useCallback(
    (label: string, cmds: (s: EditorState) => Command[]) => {
      if (readOnly !== null) return;
      setSession((s) => perform(s, label, cmds(s.state)));
    },
    [readOnly],
  );
  const openState = useCallback((o: Opened) => {
    setSession(startSession(o.state));
    setReadOnly(o.readOnly);
    setNotices(o.notices);
    setSelected(new Set());
    setShare(null);
  }, []);

  const flow = useMemo(() => {
    const f = toFlow(state, catalogue, diagnostics, selected, readOnly !== null, dragging);
    return { nodes: f.nodes.map((n) => (measured[n.id] ? { ...n, measured: measured[n.id] } : n)), edges: f.edges };
  }, [state, catalogue, diagnostics, selected, readOnly, dragging, measured]);

  const draggingRef = useRef(dragging);
  draggingRef.current = dragging;
  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      const moves: Command[] = [];
      const drag: Record<string, Pos> = { ...draggingRef.current };
      let sel: Set<string> | null = null;
      const dims: Record<string, { width: number; height: number }> = {};
      for (const c of changes) {
        if (c.type === "position") {
          // While dragging the box follows the pointer; the drop is one "move" gesture.
          if (c.dragging && c.position) drag[c.id] = c.position;
          else {
            const to = c.position ?? drag[c.id];
            if (to) moves.push({ kind: "move", key: c.id, pos: { x: Math.round(to.x), y: Math.round(to.y) } });
            delete drag[c.id];
          }
        } else if (c.type === "select") {
          sel = sel ?? new Set(selectedRef.current);
          if (c.selected) sel.add(c.id);
          else sel.delete(c.id);
        } else if (c.type === "dimensions" && c.dimensions) {
          dims[c.id] = c.dimensions;
        }
      }
      if (changes.some((c) => c.type === "position")) setDragging(drag);
      if (moves.length) run("move", () => moves);
      if (sel) setSelected(sel);
      if (Object.keys(dims).length) setMeasured((m) => ({ ...m, ...dims }));
    },
    [run],
  );
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    let sel: Set<string> | null = null;
    for (const c of changes)
      if (c.type === "select") {
        sel = sel ?? new Set(selectedRef.current);
        if (c.selected) sel.add(c.id);
        else sel.delete(c.id);
      }
    if (sel) setSelected(sel);
  }, []);

  const onConnect = useCallback(
    (c: Connection) => {
      run("connect", (s) => {
        const node = s.doc.nodes.find((n) => n.id === c.source);
        const results = catalogue.find(node?.op ?? "")?.results ?? [];
        const from = c.source.startsWith("in:") ? c.source.slice(3) : results.length === 1 ? c.source : `${c.source}.${c.sourceHandle}`;
        const to = c.target.startsWith("out:") ? c.target : `${c.target}.${c.targetHandle}`;
        return g.connect(s, catalogue, from, to);
      });
    },
    [run, catalogue],
  );

  const deleteSelection = useCallback(() => {
    const keys = selectedRef.current;
    run("delete", (s) => {
      const edgeCmds: Command[] = [...keys]
        .filter((k) => /^e[0-9]+$/.test(k))
        .map((k) => Number(k.slice(1)))
        .sort((a, b) => b - a)
        .map((index) => ({ kind: "deleteEdge", index }));
      const [after] = applyAll(s, edgeCmds);
      return [...edgeCmds, ...g.deleteKeys(after, keys)];
    });
    setSelected(new Set());
  }, [run]);

  // Commands are computed inside the state update, against the state they apply to; the
  // selection follows from the same (deterministic) fresh id.
  const addOp = useCallback(
    (op: string) => {
      run(`add ${op}`, (s) => g.addNode(s, op, freeSlot(s.layout)));
      const s = sessionRef.current.state;
      if (readOnly === null) setSelected(new Set([g.freshId(op, new Set([...s.doc.inputs.map((i) => i.name), ...s.doc.nodes.map((n) => n.id)]))]));
      setFindOpen(false);
    },
    [run, readOnly],
  );
  const selectNode = useCallback(
    (nodeId: string) => {
      setSelected(new Set([nodeId]));
      const p = sessionRef.current.state.layout[nodeId];
      if (p) void rf.setCenter(p.x + 80, p.y + 40, { duration: 0 });
      setFindOpen(false);
    },
    [rf],
  );

  const edit: EditActions = useMemo(() => ({ setAttr: (nodeId: string, key: string, value: JsonValue | undefined) => run("set attribute", (s) => g.setAttr(s, nodeId, key, value)) }), [run]);

  useShortcuts({
    find: () => setFindOpen(true),
    escape: () => setFindOpen(false),
    undo: () => readOnly === null && setSession(undo),
    redo: () => readOnly === null && setSession(redo),
    deleteSelection,
    selectAll: () => {
      const { doc } = sessionRef.current.state;
      setSelected(new Set([...doc.inputs.map((i) => inputKey(i.name)), ...doc.nodes.map((n) => n.id), ...doc.outputs.map((o) => outputKey(o.name))]));
    },
    save: () => onSaveRef.current(),
    copyText: () => {
      const clip = g.copy(sessionRef.current.state, selectedRef.current);
      return clip.nodes.length ? clipToText(clip) : null;
    },
    pasteText: (text) => {
      const clip = clipFromText(text);
      if (!clip) {
        setNotices([{ code: "S0001", severity: "warning", message: "the clipboard holds no nodes copied from the studio" }]);
        return;
      }
      run(`paste ${clip.nodes.length} nodes`, (s) => g.paste(s, clip, { x: 40, y: 40 }));
      const cmds = g.paste(sessionRef.current.state, clip, { x: 40, y: 40 });
      if (readOnly === null) setSelected(new Set(cmds.flatMap((c) => (c.kind === "insertNode" ? [c.node.id] : []))));
    },
  });

  // A link pasted into this tab's address bar opens too.
  useEffect(() => {
    const onHash = () => {
      void openFragment(location.hash).then((o) => {
        if (!o) return;
        if (!o.ok) setNotices(o.diagnostics);
        else if (canonicalDoc(o.doc) !== canonicalDoc(sessionRef.current.state.doc)) openState(fromLink(o));
      });
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [openState]);

  const onShare = useCallback(() => {
    void shareFragment(sessionRef.current.state).then(({ fragment }) => {
      history.replaceState(null, "", fragment);
      setShare({ url: location.href, size: location.href.length });
    });
  }, []);
  const onSave = useCallback(() => {
    const doc = sessionRef.current.state.doc;
    const blob = new Blob([`${prettyJson(docToJson(doc))}\n`], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${doc.name || "workflow"}.workflow.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  }, []);

  const onSaveRef = useRef(onSave);
  onSaveRef.current = onSave;

  const onDrop = useCallback(
    (e: React.DragEvent) => {
      e.preventDefault();
      const file = e.dataTransfer.files[0];
      if (!file) return;
      void openDroppedFile(file).then((o) => (o.opened ? openState(o.opened) : setNotices(o.notices)));
    },
    [openState],
  );

  const past = session.past[session.past.length - 1];
  const next = session.future[0];
  return (
    <EditContext.Provider value={edit}>
      <div className="studio" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
        <Banner engine={engine.state} readOnly={readOnly} onLeaveReadOnly={() => setReadOnly(null)} />
        <Toolbar
          doc={state.doc}
          readOnly={readOnly !== null}
          undoLabel={past?.label}
          redoLabel={next?.label}
          onField={(field, value) => run(`set ${field}`, () => [{ kind: "setField", field, value }])}
          onAddInput={(name, type) => run("add input", (s) => g.addInput(s, name, type, freeSlot(s.layout)))}
          onAddOutput={(name) => run("add output", (s) => g.addOutput(s, name, [...selectedRef.current].find((k) => s.doc.nodes.some((n) => n.id === k)) ?? "", freeSlot(s.layout)))}
          onUndo={() => readOnly === null && setSession(undo)}
          onRedo={() => readOnly === null && setSession(redo)}
          onShare={onShare}
          onSave={onSave}
          onFind={() => setFindOpen(true)}
        />
        <div className="identity">
          <LayoutControl
            doc={state.doc}
            sizes={measured}
            disabled={readOnly !== null}
            onLaidOut={(layout) =>
              run("lay out", (s) =>
                Object.entries(layout).flatMap(([key, pos]): Command[] => {
                  const was = s.layout[key];
                  return was && was.x === pos.x && was.y === pos.y ? [] : [{ kind: "move", key, pos }];
                }),
              )
            }
          />{" "}
          content id <code id="content-id">{id}</code>
          {share && (
            <span className="share">
              {" "}
              link <input id="share-link" readOnly value={share.url} size={40} onFocus={(e) => e.target.select()} />
              {share.size > LINK_SIZE_LIMIT && <b id="share-too-long"> the link is {Math.round(share.size / 1024)} KB: save the file instead</b>}
            </span>
          )}
        </div>
        <div className="main">
          <div className="canvas" id="canvas">
            <ReactFlow
              nodes={flow.nodes}
              edges={flow.edges}
              nodeTypes={nodeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
              deleteKeyCode={null}
              multiSelectionKeyCode="Shift"
              onlyRenderVisibleElements
              nodesConnectable={readOnly === null}
              fitView
              fitViewOptions={{ maxZoom: 1 }}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls showInteractive={false} />
              {/* The minimap redraws with every pan; past 300 boxes it costs more than it shows. */}
              {state.doc.nodes.length <= MINIMAP_MAX_NODES && <MiniMap pannable zoomable />}
            </ReactFlow>
            {findOpen && <Find doc={state.doc} catalogue={catalogue} onAddOp={addOp} onSelectNode={selectNode} onClose={() => setFindOpen(false)} />}
          </div>
          <div className="side">
            <Problems diagnostics={diagnostics} notices={notices} typesChecked={engine.state.kind !== "view-only"} onSelectNode={selectNode} onRemoveEdge={(index) => run("remove edge", () => g.disconnect(index))} />
            <details>
              <summary>canonical document</summary>
              <pre id="canonical-doc">{canonical}</pre>
            </details>
          </div>
        </div>
      </div>
    </EditContext.Provider>
  );
}

export function App(props: { engine: Engine; initial: Opened }) {
  return (
    <ReactFlowProvider>
      <Studio {...props} />
    </ReactFlowProvider>
  );
}
