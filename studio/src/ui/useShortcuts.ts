// The keymap: Ctrl+Z undo, Ctrl+Shift+Z / Ctrl+Y redo, Delete/Backspace delete, Ctrl+A select
// all, Ctrl+S save the document, Ctrl+F find, Escape close, and Ctrl+C / Ctrl+V through the system clipboard's copy and paste events (no
// permission prompt; a group copied in one tab pastes in another). While a text field has the
// focus, keys other than Ctrl+F and Escape are the field's.
import { useEffect, useRef } from "react";

export interface ShortcutHandlers {
  find(): void;
  escape(): void;
  undo(): void;
  redo(): void;
  deleteSelection(): void;
  selectAll(): void;
  save(): void;
  copyText(): string | null; // null: nothing selected to copy
  pasteText(text: string): void;
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
}

export function useShortcuts(handlers: ShortcutHandlers): void {
  const h = useRef(handlers);
  h.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === "f") {
        e.preventDefault();
        h.current.find();
        return;
      }
      if (mod && key === "s") {
        e.preventDefault(); // the page itself is not what is saved
        h.current.save();
        return;
      }
      if (key === "escape") h.current.escape();
      if (isTyping(e.target)) return;
      if (mod && key === "a") {
        e.preventDefault();
        h.current.selectAll();
        return;
      }
      if (mod && key === "z" && !e.shiftKey) {
        e.preventDefault();
        h.current.undo();
      } else if (mod && ((key === "z" && e.shiftKey) || key === "y")) {
        e.preventDefault();
        h.current.redo();
      } else if (key === "delete" || key === "backspace") {
        e.preventDefault();
        h.current.deleteSelection();
      }
    };
    const onCopy = (e: ClipboardEvent) => {
      if (isTyping(e.target) || !e.clipboardData) return;
      const text = h.current.copyText();
      if (text === null) return;
      e.clipboardData.setData("text/plain", text);
      e.preventDefault();
    };
    const onPaste = (e: ClipboardEvent) => {
      if (isTyping(e.target) || !e.clipboardData) return;
      e.preventDefault();
      h.current.pasteText(e.clipboardData.getData("text/plain"));
    };
    window.addEventListener("keydown", onKey, true);
    document.addEventListener("copy", onCopy);
    document.addEventListener("paste", onPaste);
    return () => {
      window.removeEventListener("keydown", onKey, true);
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("paste", onPaste);
    };
  }, []);
}
