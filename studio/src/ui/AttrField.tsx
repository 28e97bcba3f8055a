// One attribute of a node as an editable field. What is typed is read by the kind the
// registry declares (a float field reads "1" as 1.0; a string or dtype field takes bare text);
// an empty field removes the attribute. A value that does not fit stays and shows W0006.
import { useEffect, useState } from "react";
import type { AttrInfo } from "../catalogue/catalogue";
import { canonicalJson } from "../doc/canonical";
import { type JsonValue, parseJson } from "../doc/json";

export function readAttrText(text: string, spec: AttrInfo | undefined): JsonValue | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  if (spec?.kind === "string" || spec?.kind === "dtype") {
    const v = parseJson(t);
    return v.ok && typeof v.value === "string" ? v.value : t;
  }
  const v = parseJson(t);
  if (!v.ok) return t; // kept as text: the check says what the attribute wants
  const toFloat = (x: JsonValue): JsonValue => (typeof x === "bigint" ? Number(x) : x);
  if (spec?.kind === "float") return toFloat(v.value);
  if (spec?.kind === "floats" && Array.isArray(v.value)) return v.value.map(toFloat);
  return v.value;
}

export function showAttr(value: JsonValue | undefined, spec: AttrInfo | undefined): string {
  if (value === undefined) return "";
  if (typeof value === "string" && (spec?.kind === "string" || spec?.kind === "dtype")) return value;
  return canonicalJson(value);
}

interface Props {
  nodeId: string;
  name: string;
  spec: AttrInfo | undefined;
  value: JsonValue | undefined;
  readOnly: boolean;
  onSet(nodeId: string, key: string, value: JsonValue | undefined): void;
}

export function AttrField({ nodeId, name, spec, value, readOnly, onSet }: Props) {
  const shown = showAttr(value, spec);
  const [text, setText] = useState(shown);
  useEffect(() => setText(shown), [shown]);
  const commit = () => {
    if (text !== shown) onSet(nodeId, name, readAttrText(text, spec));
  };
  const hint = spec ? `${spec.kind}, ${spec.presence}${spec.default !== undefined ? ` (default ${spec.default})` : ""}: ${spec.doc}` : "not an attribute of a known op";
  return (
    <label className="attr" title={hint}>
      <span className={`attr-name${spec?.presence === "required" ? " required" : ""}`}>{name}</span>
      <input
        data-attr={`${nodeId}.${name}`}
        value={text}
        placeholder={spec?.default ?? (spec?.presence === "required" ? "required" : "")}
        readOnly={readOnly}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") commit();
          e.stopPropagation(); // typing is not a shortcut
        }}
      />
    </label>
  );
}
