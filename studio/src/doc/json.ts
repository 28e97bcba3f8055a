// A JSON reader that keeps what JSON.parse loses: where each value sits in the text (for
// located diagnostics), and whether a number was written as an integer (a bigint, exact
// beyond 2^53, as the engine's i64 attributes need) or as a float (a number). It never
// throws: malformed text yields a W0001 with the offset where reading stopped.

export type JsonValue = null | boolean | string | number | bigint | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface Location {
  offset: number; // UTF-16 index into the text
  line: number; // 1-based
  column: number; // 1-based
}

export interface JsonError {
  code: "W0001" | "W0002";
  message: string;
  at: Location;
  pointer?: string;
}

export type JsonResult = { ok: true; value: JsonValue; spans: Map<string, number> } | { ok: false; error: JsonError };

export const MAX_DEPTH = 64;

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Sets a key even when it is "__proto__" (a plain assignment would change the prototype).
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function locate(text: string, offset: number): Location {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; ++i) {
    if (text.charCodeAt(i) === 10) {
      ++line;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

class Failure {
  constructor(
    readonly code: "W0001" | "W0002",
    readonly message: string,
    readonly offset: number,
    readonly pointer?: string,
  ) {}
}

// spans: JSON pointer of each value -> offset of its first character.
export function parseJson(text: string): JsonResult {
  let p = 0;
  const spans = new Map<string, number>();
  const fail = (message: string, at = p): never => {
    throw new Failure("W0001", message, at);
  };
  const ws = () => {
    while (p < text.length) {
      const c = text.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) ++p;
      else break;
    }
  };
  const str = (): string => {
    const start = p++; // the opening quote
    let out = "";
    for (;;) {
      if (p >= text.length) fail("unterminated string", start);
      const c = text.charCodeAt(p);
      if (c === 0x22) {
        ++p;
        return out;
      }
      if (c < 0x20) fail("control character in a string (escape it)");
      if (c !== 0x5c) {
        out += text[p++];
        continue;
      }
      const e = text[p + 1];
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e !== undefined && e in simple) {
        out += simple[e];
        p += 2;
      } else if (e === "u") {
        const hex = text.slice(p + 2, p + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
        out += String.fromCharCode(parseInt(hex, 16));
        p += 6;
      } else {
        fail("bad escape in a string");
      }
    }
  };
  const num = (): number | bigint => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(p, p + 400));
    if (!m) return fail("bad number");
    const lexeme = m[0];
    const at = p;
    p += lexeme.length;
    if (m[2] === undefined && m[3] === undefined) return BigInt(lexeme);
    const v = Number(lexeme);
    if (!Number.isFinite(v)) fail(`number ${lexeme} is outside binary64's range`, at);
    return v;
  };
  const value = (pointer: string, depth: number): JsonValue => {
    ws();
    spans.set(pointer, p);
    const c = text[p];
    if (c === "{" || c === "[") {
      if (depth >= MAX_DEPTH) fail(`the JSON nests deeper than ${MAX_DEPTH} levels`);
      ++p;
      ws();
      if (c === "[") {
        const arr: JsonValue[] = [];
        if (text[p] === "]") {
          ++p;
          return arr;
        }
        for (;;) {
          arr.push(value(`${pointer}/${arr.length}`, depth + 1));
          ws();
          if (text[p] === ",") ++p;
          else if (text[p] === "]") {
            ++p;
            return arr;
          } else fail("expected ',' or ']'");
        }
      }
      const obj: JsonObject = {};
      if (text[p] === "}") {
        ++p;
        return obj;
      }
      for (;;) {
        ws();
        if (text[p] !== '"') fail("expected a key in quotes");
        const keyAt = p;
        const key = str();
        const child = `${pointer}/${escapePointerToken(key)}`;
        if (Object.prototype.hasOwnProperty.call(obj, key)) throw new Failure("W0002", `the key "${key}" appears twice`, keyAt, child);
        ws();
        if (text[p] !== ":") fail("expected ':'");
        ++p;
        setKey(obj, key, value(child, depth + 1));
        ws();
        if (text[p] === ",") ++p;
        else if (text[p] === "}") {
          ++p;
          return obj;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === '"') return str();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return num();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, p)) {
        p += word.length;
        return v;
      }
    }
    return fail(p >= text.length ? "unexpected end of the text" : `unexpected character '${c}'`);
  };
  try {
    const v = value("", 0);
    ws();
    if (p < text.length) fail("text after the JSON value");
    return { ok: true, value: v, spans };
  } catch (e) {
    if (!(e instanceof Failure)) throw e;
    const error: JsonError = { code: e.code, message: e.code === "W0001" ? `not valid JSON: ${e.message}` : e.message, at: locate(text, e.offset) };
    if (e.pointer !== undefined) error.pointer = e.pointer;
    return { ok: false, error };
  }
}
