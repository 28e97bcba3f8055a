// The command log: one entry per gesture (a paste of 40 nodes is one entry), undo applies its
// inverses, redo its commands again. Pure: a session in, a new session out.
import { type Command, applyAll } from "./commands";
import type { EditorState } from "./state";

export interface Entry {
  readonly label: string;
  readonly forward: readonly Command[];
  readonly inverse: readonly Command[];
}
export interface Session {
  readonly state: EditorState;
  readonly past: readonly Entry[];
  readonly future: readonly Entry[];
}

export function startSession(state: EditorState): Session {
  return { state, past: [], future: [] };
}

export function perform(s: Session, label: string, cmds: readonly Command[]): Session {
  if (cmds.length === 0) return s;
  const [state, inverse] = applyAll(s.state, cmds);
  return { state, past: [...s.past, { label, forward: cmds, inverse }], future: [] };
}

export function undo(s: Session): Session {
  const entry = s.past[s.past.length - 1];
  if (!entry) return s;
  const [state] = applyAll(s.state, entry.inverse);
  return { state, past: s.past.slice(0, -1), future: [entry, ...s.future] };
}

export function redo(s: Session): Session {
  const entry = s.future[0];
  if (!entry) return s;
  const [state] = applyAll(s.state, entry.forward);
  return { state, past: [...s.past, entry], future: s.future.slice(1) };
}
