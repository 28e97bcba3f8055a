// Helpers shared by the receipt and run-record codecs: reading canonical strings and
// device profiles back from untrusted bytes (every failure is a message, never a crash).
#pragma once

#include <string>

#include "base/canonical.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

// A canonical string (u32 length + UTF-8 bytes, at most 1 MiB).
bool read_str(ByteReader& r, std::string& out);
void write_profile(CanonicalWriter& w, const runtime::DeviceProfile& p);
bool read_profile(ByteReader& r, runtime::DeviceProfile& p);
// "2026-11-29T12:34:56Z" (UTC, now).
std::string utc_now();

}  // namespace rung::conformance
