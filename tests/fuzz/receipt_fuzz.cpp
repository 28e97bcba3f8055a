// libFuzzer target for conformance receipts as the store holds them (`make fuzz TARGET=receipt`).
// A receipt that decodes must re-encode to its own bytes (its id is their hash) and show as JSON.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "conformance/receipt.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  std::string error;
  if (auto r = rung::conformance::ConformanceReceipt::decode(bytes, error)) {
    auto again = r->encode();
    if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
    (void)r->to_json().dump(2);  // throws (and so aborts) on strings that are not UTF-8
  } else if (error.empty()) {
    std::abort();  // a refusal must say why
  }
  return 0;
}
