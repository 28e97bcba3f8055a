// The canonical bytes of a JSON value: keys sorted (by UTF-16 code units, as RFC 8785 does),
// no whitespace, strings as JSON.stringify escapes them, array order kept (a variadic
// operand's edges are ordered, and inputs are positional). Numbers keep the integer/float
// distinction the engine's attributes rely on: an integer (bigint) is its exact decimal; a
// float is the shortest text that reads back to the same binary64 (ECMAScript's
// Number::toString), with ".0" added when that text would read as an integer ("-0.0" for -0).
import type { JsonValue } from "./json";

export function canonicalFloat(v: number): string {
  if (!Number.isFinite(v)) throw new RangeError(`canonicalFloat: ${v} is not a JSON number`);
  if (Object.is(v, -0)) return "-0.0";
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

export function canonicalJson(v: JsonValue): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return JSON.stringify(v);
    case "bigint":
      return v.toString();
    case "number":
      return canonicalFloat(v);
    default:
      break;
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k] as JsonValue)}`).join(",")}}`;
}

// Readable text of a value (for files saved by the studio): the canonical form's values,
// indented. Not hashed; the content id is always over canonicalJson.
export function prettyJson(v: JsonValue, indent = ""): string {
  const next = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return `[\n${v.map((x) => next + prettyJson(x, next)).join(",\n")}\n${indent}]`;
  }
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return "{}";
    return `{\n${keys.map((k) => `${next}${JSON.stringify(k)}: ${prettyJson(v[k] as JsonValue, next)}`).join(",\n")}\n${indent}}`;
  }
  return canonicalJson(v);
}
