// libFuzzer target for the CSV reader (`make fuzz TARGET=csv`), in every header mode and a
// few dtypes. The reader may never drop a row silently: when the file reads with no header
// (`header: false`), detection must give the same tensor; when detection reads it otherwise,
// it must be what `header: true` gives.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_check.h"
#include "runtime/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using rung::csv::Header;
  rung::SourceMap sources;
  rung::SourceId id = sources.add("fuzz.csv", std::string(reinterpret_cast<const char*>(data), size));
  for (rung::DType dt : {rung::DType::f32, rung::DType::i64, rung::DType::u8, rung::DType::f16}) {
    rung::DiagnosticSink diags;
    auto detect = rung::csv::parse(id, sources, dt, Header::detect, diags);
    auto absent = rung::csv::parse(id, sources, dt, Header::absent, diags);
    auto present = rung::csv::parse(id, sources, dt, Header::present, diags);
    if (absent && (!detect || !detect->identical(*absent))) std::abort();
    if (detect && !absent && (!present || !present->identical(*detect))) std::abort();
    rung::fuzz::check_diagnostics(diags, sources);
  }
  return 0;
}
