// A document's content id: SHA3-256 of its canonical bytes (UTF-8), in hex. WebCrypto has no
// SHA-3, so @noble/hashes computes it (the same function as the engine's src/base/sha3).
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export function contentId(canonical: string): string {
  return bytesToHex(sha3_256(new TextEncoder().encode(canonical)));
}
