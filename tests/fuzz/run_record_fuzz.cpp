// libFuzzer target for the store's run records and stored tensors (`make fuzz TARGET=run_record`),
// as `rung record` and `rung replay` read them: the same bytes go to RunRecord::decode and to
// decode_tensor. A record that decodes must re-encode to its own bytes (its id is the hash of
// them) and show as text and JSON; a tensor that decodes must re-encode to its own bytes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "conformance/run_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  std::string error;
  if (auto r = rung::conformance::RunRecord::decode(bytes, error)) {
    auto again = r->encode();
    if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
    (void)r->to_text();
    (void)r->to_json().dump(2);  // throws (and so aborts) on strings that are not UTF-8
  } else if (error.empty()) {
    std::abort();  // a refusal must say why
  }
  error.clear();
  if (auto t = rung::conformance::decode_tensor(bytes, error)) {
    auto again = rung::conformance::encode_tensor(*t);
    if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  } else if (error.empty()) {
    std::abort();
  }
  return 0;
}
