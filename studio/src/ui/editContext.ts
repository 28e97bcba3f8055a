// Edits that node components start; the App turns them into gestures on the command log.
import { createContext } from "react";
import type { JsonValue } from "../doc/json";

export interface EditActions {
  setAttr(nodeId: string, key: string, value: JsonValue | undefined): void;
}

export const EditContext = createContext<EditActions>({ setAttr: () => undefined });
