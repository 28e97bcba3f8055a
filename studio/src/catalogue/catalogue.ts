// The op catalogue: the registry's listing as `rung ops --json` prints it, generated into
// src/generated/ops.json at build time (scripts/gen-catalogue.mjs). Ports are the
// signature's operand and result names; attributes carry their kind and presence.

export type Arity = "one" | "optional" | "variadic";
export type AttrKind = "bool" | "int" | "float" | "string" | "ints" | "floats" | "dtype" | "shape";

export interface OperandInfo {
  readonly name: string;
  readonly arity: Arity;
  readonly type: string;
}
export interface ResultInfo {
  readonly name: string;
  readonly type: string;
}
export interface AttrInfo {
  readonly name: string;
  readonly kind: AttrKind;
  readonly presence: "required" | "default" | "optional";
  readonly default?: string;
  readonly doc: string;
  readonly choices?: readonly string[];
}
export interface OpInfo {
  readonly name: string;
  readonly family: string;
  readonly summary: string;
  readonly signature: string;
  readonly operands: readonly OperandInfo[];
  readonly results: readonly ResultInfo[];
  readonly attributes: readonly AttrInfo[];
}

export class Catalogue {
  private readonly byName = new Map<string, OpInfo>();
  constructor(readonly ops: readonly OpInfo[]) {
    for (const op of ops) this.byName.set(op.name, op);
  }
  find(name: string): OpInfo | undefined {
    return this.byName.get(name);
  }
  // The nearest op name within edit distance 2, as the engine's W0003 suggests.
  suggest(name: string): string | undefined {
    let best: string | undefined;
    let bestD = 3;
    for (const op of this.ops) {
      const d = editDistance(name, op.name);
      if (d < bestD) {
        bestD = d;
        best = op.name;
      }
    }
    return best;
  }
  // Ops whose name, family or summary holds every word of the query; name matches first.
  search(query: string): OpInfo[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [...this.ops];
    const hits = this.ops.filter((op) => words.every((w) => `${op.name} ${op.family} ${op.summary}`.toLowerCase().includes(w)));
    const first = words[0] ?? "";
    const rank = (op: OpInfo) => (op.name === first ? 0 : op.name.startsWith(first) ? 1 : 2);
    return hits.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  }
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; ++i) {
    const cur = [i];
    for (let j = 1; j <= b.length; ++j) {
      const sub = (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      cur.push(Math.min(sub, (prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

// The listing's shape is checked when it is loaded, so a stale or foreign file fails loudly.
export function catalogueFromListing(listing: unknown): Catalogue {
  const l = listing as { count?: unknown; ops?: unknown };
  if (!Array.isArray(l.ops) || l.ops.length !== l.count) throw new Error("op catalogue: not a `rung ops --json` listing");
  return new Catalogue(l.ops as OpInfo[]);
}
