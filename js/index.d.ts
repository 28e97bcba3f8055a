// Types of @rung/engine (index.mjs; docs/wasm-js.md).

export type DType = 'f32' | 'f16' | 'bf16' | 'f64' | 'i64' | 'i32' | 'i16' | 'i8' | 'u64' | 'u32' | 'u16' | 'u8' | 'bool';

/** Compact row-major little-endian bytes. */
export interface Tensor {
  dtype: DType;
  shape: number[];
  data: ArrayBuffer | ArrayBufferView;
}
export interface OutputTensor {
  dtype: DType;
  shape: number[];
  data: ArrayBuffer;
  /** SHA3-256 of dtype, shape and bytes: what `rung run` prints. */
  sha3_256: string;
}

/** One diagnostic, as `rung check --error-format json` prints it. */
export interface Diagnostic {
  code: string;
  severity: 'error' | 'warning' | 'note';
  message: string;
  labels?: { message: string; primary: boolean; span: Span }[];
  notes: string[];
  suggestions?: unknown[];
}
export interface Span {
  file: string;
  begin: number;
  end: number;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

/** A workflow document (docs/workflow.md, docs/workflow.schema.json). */
export interface WorkflowDoc {
  format: 'rung-workflow';
  version: number;
  name: string;
  [key: string]: unknown;
}
export type SourceInput = string | WorkflowDoc | { name?: string; text: string; kind: 'rung' | 'workflow' };

export interface Param {
  name: string;
  type: string;
  dtype: DType;
  /** -1 where the extent is symbolic */
  shape: number[];
}
export interface EntryInfo {
  name: string;
  exported: boolean;
  tier: string;
  params: Param[];
  results: Param[];
}
/** The functions of each clean source, by source name. */
export type PortTypes = Record<string, EntryInfo[]>;

export interface Program {
  handle: number;
  generation: number;
  module: string;
  entry: string;
  entries: EntryInfo[];
  tier: string;
  tolerance: string;
  fingerprint: string;
  warnings: Diagnostic[];
}

/** `rung plan --json`'s document (docs/plan.md). */
export interface PlanJson {
  verdict: { verdict: 'green' | 'yellow' | 'red'; budget: number; budget_source: string; required: number; reasons: string[]; warnings: string[]; suggestions: unknown[] };
  [key: string]: unknown;
}

export interface RunOptions {
  entry?: string;
  backend?: 'cpu' | 'reference';
  receipts?: 'conform' | 'require' | 'ignore';
  /** Read at every progress and print event; see docs/wasm-js.md for node and browsers. */
  signal?: AbortSignal;
  /** Called synchronously with each event (under node: the place to abort from). */
  onEvent?: (event: RunEvent) => void;
  /** Transfer the arguments' buffers to the Worker instead of copying them. */
  transfer?: boolean;
}

export type RunEvent =
  | { type: 'start'; entry: string; backend: string }
  | { type: 'progress'; phase: string; done: number; total: number; item: string; elapsed_s: number; finished: boolean }
  | { type: 'print'; text: string }
  | {
      type: 'result';
      outputs: Record<string, OutputTensor>;
      entry: string;
      tier: string;
      backend: string;
      fingerprint: string;
      graph_fingerprint: string;
      blockir: string;
      /** non-exact backends: convergent, its class and why; else empty */
      reproducibility: string;
      record: unknown;
      warnings: Diagnostic[];
    }
  | { type: 'error'; diagnostics: Diagnostic[] };

export interface RunHandle extends AsyncIterable<RunEvent> {
  /** Settles when the run's last event has been queued. */
  done: Promise<void>;
}

export interface RungEngine {
  /** Never throws. */
  check(doc: SourceInput | SourceInput[]): Promise<{ diagnostics: Diagnostic[]; ports: PortTypes }>;
  compile(src: SourceInput, o?: { name?: string; entry?: string; tier?: string; tolerance?: string; dims?: Record<string, number> | string[] }): Promise<Program>;
  show(p: Program, rung: 'block' | 'graph' | 'kernel' | 'plan', backend?: string): Promise<string>;
  plan(
    p: Program,
    o?: { device?: 'cpu' | 'cuda' | 'webgpu'; budget?: number | string; entry?: string; dims?: Record<string, number> | string[]; stream?: number; bindingLimit?: number | string; batch?: number },
  ): Promise<PlanJson>;
  run(p: Program, args: Record<string, Tensor>, o?: RunOptions): RunHandle;
  release(p: Program): Promise<boolean>;
  close(): void;
}

export interface EngineOptions {
  /** URL (or path relative to index.mjs) of rung_engine.mjs; default ./dist/rung_engine.mjs */
  module?: string | URL;
  /** URL of rung_engine.wasm; default beside the module */
  wasm?: string | URL;
  /** Run in a Web Worker; default: in browsers, not under node */
  worker?: boolean;
}

export function createEngine(options?: EngineOptions): Promise<RungEngine>;

/** What compile, show and plan throw: the diagnostics, the first one's code and message as the message. */
export class EngineError extends Error {
  constructor(diagnostics: Diagnostic[]);
  diagnostics: Diagnostic[];
}
