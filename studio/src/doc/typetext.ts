// rung's type text (`f32[N, 8]`, `bf16[4] @device`, `i64`), read as the engine's
// parse_type reads it (src/ir/graph/type_parse.cpp): the studio checks W0010 without the engine.
export const DTYPES = ["f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "bool", "q8_0", "q4_0"];
export const SPACES = ["host", "device", "pinned", "unified"];

// null when the text is a type; else why not.
export function typeTextError(s: string): string | null {
  let p = 0;
  const skip = () => {
    while (s[p] === " ") ++p;
  };
  const ident = () => {
    const m = /^[A-Za-z0-9_]*/.exec(s.slice(p));
    const word = m ? m[0] : "";
    p += word.length;
    return word;
  };
  const fail = (msg: string) => `${msg} (at character ${p} of \`${s}\`)`;
  skip();
  const dt = ident();
  if (!DTYPES.includes(dt)) return fail(`unknown element type \`${dt}\``);
  skip();
  if (s[p] === "[") {
    ++p;
    skip();
    if (s[p] === "]") return fail("an empty shape is written without brackets");
    for (;;) {
      skip();
      const d = ident();
      if (d === "") return fail("expected a dimension");
      if (/^[0-9]/.test(d)) {
        if (!/^[0-9]+$/.test(d)) return fail("a dimension is a number or a symbol");
        if (BigInt(d) > 18446744073709551606n) return fail("dimension too large");
      }
      skip();
      if (s[p] === ",") {
        ++p;
        continue;
      }
      if (s[p] === "]") {
        ++p;
        break;
      }
      return fail("expected ',' or ']'");
    }
  }
  skip();
  if (s[p] === "@") {
    ++p;
    const m = ident();
    if (!SPACES.includes(m)) return fail(`unknown memory space \`${m}\` (host, device, pinned, unified)`);
    skip();
  }
  if (p !== s.length) return fail("unexpected text");
  return null;
}
