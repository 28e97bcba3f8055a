// What the public handles (include/rung/) hold: the library's own objects. Private to src/;
// every surface sees only the public headers.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/source.h"
#include "ir/block/block.h"
#include "ir/graph/keg.h"
#include "ops/host_tensor.h"
#include "rung/diagnostics.h"
#include "rung/module.h"
#include "rung/program.h"
#include "rung/session.h"
#include "rung/tensor.h"
#include "rung/util.h"

namespace rung {

// The sources are shared: a Module's diagnostics and a later run's point into the same files.
struct Diagnostics::Impl {
  std::shared_ptr<const SourceMap> sources;
  DiagnosticSink sink;
  std::vector<Message> messages;  // the public form, made once
};

namespace api {

// The public form of what the library reported (locations resolved against `sources`).
Diagnostics diagnostics_of(const DiagnosticSink& sink, std::shared_ptr<const SourceMap> sources);
Diagnostics diagnostics_of(const DiagnosticSink& sink, const SourceMap& sources);  // copies the map
// A failure without sources (API boundary codes).
template <typename T>
Result<T> fail(std::string code, std::string text, std::vector<std::string> notes = {}) {
  return Result<T>(Diagnostics::error(std::move(code), std::move(text), std::move(notes)));
}

}  // namespace api

struct Tensor::Impl {
  ops::HostTensor host;
  std::vector<std::int64_t> shape;  // host.shape() as the API's signed extents
  bool borrowed = false;
  bool copied = false;  // made by Tensor::copy from a view that was not compact (counted in run stats)
};

namespace api {
Tensor wrap(ops::HostTensor t, bool borrowed = false);
inline const ops::HostTensor& host_of(const Tensor& t) { return t.impl().host; }
}  // namespace api

struct Module::Impl {
  Source source;
  SourceKind kind = SourceKind::rung;
  std::shared_ptr<SourceMap> sources;  // the files loaded (imports included)
  block::Program program;              // as the file declares it
  bool declares_determinism = true;    // false: a bare .keg graph
  std::vector<KegAttachment> keg_attachments;  // a .keg's optional sections (the exec plan)
  std::string provenance;  // where the program came from (an imported model's record), JSON; empty: nothing to say
  SourceId keg_source = kNoSource;
};

struct Program::Impl {
  Module module;
  block::Program program;  // determinism fixed
  std::string tier_option, tolerance_option;  // as given (kept in run records)
  std::string fingerprint, graph_fingerprint, blockir;  // hex, computed once
};

namespace conformance {
struct RunRecord;
}

namespace api {
std::vector<EntryInfo> entries_of(const block::Program& p, bool exported_only);
// An .onnx model as a program (src/api/onnx.cpp); `provenance` gets the model's record (JSON).
std::optional<block::Program> load_onnx(const Source& src, const LoadOptions& options, DiagnosticSink& diags, std::string& provenance);
// The provenance section of a program's .keg file, if it has something to record.
std::vector<KegAttachment> provenance_sections(const std::string& provenance);
// The public form of a record (id: its store id, or empty when not written).
RunRecord public_record(const conformance::RunRecord& r, std::string id);
// The record the session's last run made (empty before a run).
const conformance::RunRecord& last_record(const Session& s);
}  // namespace api

}  // namespace rung
