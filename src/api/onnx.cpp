// ONNX models through the public API (rung/onnx.h): Module::load's .onnx kind and the import
// verb. The importer itself is src/onnx; without it (RUNG_ONNX=OFF) every entry says so.
#include "rung/onnx.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "api/impl.h"
#include "base/file_io.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg_format.h"
#ifdef RUNG_API_HAVE_ONNX
#include "onnx/onnx_import.h"
#endif

namespace rung {

namespace fs = std::filesystem;

namespace api {

std::vector<KegAttachment> provenance_sections(const std::string& provenance) {
  if (provenance.empty()) return {};
  return {KegAttachment{static_cast<std::uint32_t>(keg::SectionKind::provenance),
                        std::vector<std::uint8_t>(provenance.begin(), provenance.end()), 0}};
}

#ifdef RUNG_API_HAVE_ONNX

namespace {

std::string provenance_json(const onnx_import::Provenance& p) {
  nlohmann::json opsets = nlohmann::json::object();
  for (const auto& [domain, version] : p.opsets) opsets[domain] = version;
  nlohmann::json j{{"format", "onnx"},        {"ir_version", p.ir_version},        {"opsets", opsets},
                   {"producer", p.producer_name}, {"producer_version", p.producer_version}, {"graph", p.graph_name}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // names are not always UTF-8
}

}  // namespace

std::optional<block::Program> load_onnx(const Source& src, const LoadOptions& options, DiagnosticSink& diags, std::string& provenance) {
  onnx_import::Options o;
  if (options.max_weight_bytes) o.limits.max_weight_bytes = options.max_weight_bytes;
  for (const auto& d : options.dims) {
    auto eq = d.find('=');
    std::string name = d.substr(0, eq), value = eq == std::string::npos ? "" : d.substr(eq + 1);
    bool digits = !value.empty() && value.size() <= 18 && value.find_first_not_of("0123456789") == std::string::npos;
    if (name.empty() || !digits) {
      diags.error("C0020", "--dim " + d + ": expected NAME=EXTENT, such as B=8");
      return std::nullopt;
    }
    o.bound_dims[name] = std::stoull(value);
  }
  // A copy of each bound value: the import outlives no caller's buffer (a borrowed NumPy array).
  for (const auto& [name, tensor] : options.bind)
    o.bound_inputs.emplace_back(name, std::make_shared<const ops::HostTensor>(api::host_of(tensor)));
  std::string bytes;
  if (src.in_memory()) {
    bytes = src.content();
  } else {
    auto text = read_file(src.path(), diags, o.limits.max_proto_bytes);
    if (!text) return std::nullopt;
    bytes = std::move(*text);
    fs::path dir = fs::path(src.path()).parent_path();
    o.model_dir = dir.empty() ? "." : dir.string();
  }
  auto imported = onnx_import::import_model(bytes, fs::path(src.name()).stem().string(), o, diags);
  if (!imported) return std::nullopt;
  provenance = provenance_json(imported->provenance);
  return std::move(imported->program);
}

#else

std::optional<block::Program> load_onnx(const Source& src, const LoadOptions&, DiagnosticSink& diags, std::string&) {
  diags.error("C0011", "cannot load '" + src.name() + "': this rung was built without the ONNX importer (RUNG_ONNX=OFF)")
      .note("build with libonnx-dev and libprotobuf-dev installed");
  return std::nullopt;
}

#endif

}  // namespace api

bool onnx_supported() {
#ifdef RUNG_API_HAVE_ONNX
  return true;
#else
  return false;
#endif
}

Result<std::pair<std::string, Tensor>> onnx_binding(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return api::fail<std::pair<std::string, Tensor>>("C0020", "--bind " + spec + ": expected NAME=FILE.npy, such as starts=starts.npy");
  auto t = Tensor::load_npy(spec.substr(eq + 1));
  if (!t) return Result<std::pair<std::string, Tensor>>(t.diagnostics());
  return std::make_pair(spec.substr(0, eq), std::move(*t));
}

Result<std::vector<std::string>> onnx_graph_inputs(const Source& model) {
  if (model.kind() != SourceKind::onnx)
    return api::fail<std::vector<std::string>>("C0011", "'" + model.name() + "' is not an .onnx model");
#ifdef RUNG_API_HAVE_ONNX
  DiagnosticSink diags;
  onnx_import::Limits limits;
  std::string bytes;
  if (model.in_memory()) {
    bytes = model.content();
  } else if (auto text = read_file(model.path(), diags, limits.max_proto_bytes)) {
    bytes = std::move(*text);
  }
  std::optional<std::vector<std::string>> names;
  if (!diags.has_errors()) names = onnx_import::graph_input_names(bytes, limits, diags);
  if (!names) return Result<std::vector<std::string>>(api::diagnostics_of(diags, SourceMap()));
  return std::move(*names);
#else
  return api::fail<std::vector<std::string>>("C0011", "cannot read '" + model.name() + "': this rung was built without the ONNX importer (RUNG_ONNX=OFF)");
#endif
}

std::vector<OnnxHandlerInfo> onnx_handlers() {
  std::vector<OnnxHandlerInfo> out;
#ifdef RUNG_API_HAVE_ONNX
  for (auto& h : onnx_import::handler_list()) out.push_back({h.domain, h.op_type, h.since, h.until, h.how});
#endif
  return out;
}

Result<OnnxImported> import_onnx(const Source& model, const OnnxImportOptions& options) {
  if (model.kind() != SourceKind::onnx)
    return api::fail<OnnxImported>("C0011", "cannot import '" + model.name() + "': expected an .onnx model");
  LoadOptions lo;
  lo.max_weight_bytes = options.max_weight_bytes;
  lo.dims = options.dims;
  lo.bind = options.bind;
  auto m = Module::load(model, lo);
  if (!m) return Result<OnnxImported>(m.diagnostics());
  const Module::Impl& impl = m->impl();
  DiagnosticSink diags;
  auto fail = [&] {
    Diagnostics d = m.diagnostics();
    d.append(api::diagnostics_of(diags, impl.sources));
    return Result<OnnxImported>(std::move(d));
  };
  std::string out = options.output.empty() ? fs::path(model.name()).replace_extension(".keg").string() : options.output;
  auto bytes = block::write_program_keg(impl.program, api::provenance_sections(impl.provenance), diags);
  if (!bytes || !write_file_atomic(out, *bytes, diags)) return fail();
  OnnxImported r;
  r.path = out;
  r.fingerprint = block::program_fingerprint(impl.program).hex();
  r.graph_fingerprint = impl.program.graph.fingerprint().hex();
  r.blockir = impl.program.hash().hex();
  r.provenance = impl.provenance;
  auto j = nlohmann::json::parse(impl.provenance, nullptr, false);
  if (j.is_object()) {
    r.ir_version = j.value("ir_version", std::int64_t{0});
    std::string name = j.value("producer", std::string()), version = j.value("producer_version", std::string());
    r.producer = version.empty() ? name : name + " " + version;
    if (auto it = j.find("opsets"); it != j.end() && it->is_object())
      for (auto o = it->begin(); o != it->end(); ++o)
        if (o->is_number_integer()) r.opsets.emplace_back(o.key(), o->get<std::int64_t>());
  }
  return Result<OnnxImported>(std::move(r), m.diagnostics());
}

}  // namespace rung
