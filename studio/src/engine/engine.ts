// The studio's view of the engine (the wasm build of WASM.md, behind js/): what it can do for
// the editor, and in which state it is. The studio never guesses a state: without an engine it
// is view-only with the exact reason, and says that types are unchecked.
import type { Catalogue } from "../catalogue/catalogue";
import type { Diagnostic } from "../doc/diagnostic";

export type EngineState =
  | { readonly kind: "view-only"; readonly reason: string }
  | { readonly kind: "cpu"; readonly reason: string; readonly threads: number }
  | { readonly kind: "webgpu"; readonly adapter: string; readonly software: boolean };

export interface CheckResult {
  readonly diagnostics: readonly Diagnostic[];
  // Inferred type text per port, keyed as edges spell them: "x" (an input), "node.result".
  readonly portTypes: Readonly<Record<string, string>>;
}

export interface Engine {
  readonly state: EngineState;
  readonly catalogue: Catalogue;
  // The canonical document in, the engine's diagnostics and every port's type out.
  check(canonicalDocument: string): Promise<CheckResult>;
}

// No engine: the shipped catalogue still serves drawing; check() refuses with the reason.
export function viewOnlyEngine(reason: string, catalogue: Catalogue): Engine {
  return {
    state: { kind: "view-only", reason },
    catalogue,
    check: () => Promise.reject(new Error(`no engine: ${reason}`)),
  };
}

export function bannerText(state: EngineState): string {
  switch (state.kind) {
    case "view-only":
      return `View only: ${state.reason}. Drawing, sharing and the op catalogue work; types are unchecked and nothing runs.`;
    case "cpu":
      return `Running on the CPU (WebAssembly): slower, heavy training limited. ${state.reason}; ${state.threads} thread${state.threads === 1 ? "" : "s"}.`;
    case "webgpu":
      return state.software ? `WebGPU on a software GPU (${state.adapter})` : `WebGPU: ${state.adapter}`;
  }
}
