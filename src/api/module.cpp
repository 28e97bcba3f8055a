// Module::load: what tools/rung/program_loader.cpp did, for a file or bytes in memory, and
// without deciding anything the file does not say (Program::compile fixes the determinism).
#include <filesystem>

#include "api/impl.h"
#include "base/file_io.h"
#include "frontend/frontend.h"
#include "ir/block/from_graph.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg_format.h"
#include "ops/signatures.h"
#include "syntax/load.h"
#include "syntax/parse.h"
#include "workflow/workflow.h"

namespace rung {

namespace fs = std::filesystem;

Source Source::file(std::string path) {
  Source s;
  s.name_ = s.path_ = std::move(path);
  std::string ext = fs::path(s.path_).extension().string();
  if (ext == ".rung") s.kind_ = SourceKind::rung;
  else if (ext == ".keg") s.kind_ = SourceKind::keg;
  else if (ext == ".json") s.kind_ = SourceKind::workflow;
  else if (ext == ".onnx") s.kind_ = SourceKind::onnx;
  return s;
}

Source Source::text(std::string name, std::string text, SourceKind kind) {
  Source s;
  s.name_ = std::move(name);
  s.content_ = std::move(text);
  s.kind_ = kind;
  return s;
}

Source Source::bytes(std::string name, std::span<const std::byte> bytes, SourceKind kind) {
  return text(std::move(name), std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()), kind);
}

namespace {

std::optional<block::Program> load_rung(const Source& src, SourceMap& sources, DiagnosticSink& diags) {
  if (!src.in_memory()) return frontend::compile_file(src.path(), sources, diags);
  if (src.content().size() > syntax::kMaxSourceBytes) {
    diags.error("C0002", "'" + src.name() + "' is larger than the limit of " + std::to_string(syntax::kMaxSourceBytes) + " bytes");
    return std::nullopt;
  }
  SourceId id = sources.add(src.name(), src.content());
  syntax::SyntaxTree tree = syntax::check_syntax(sources, id, diags);
  if (diags.has_errors()) return std::nullopt;
  return frontend::lower(tree, sources, id, diags);
}

std::optional<block::Program> load_workflow(const Source& src, SourceMap& sources, DiagnosticSink& diags) {
  std::string text;
  if (src.in_memory()) {
    text = src.content();
  } else {
    auto t = read_file(src.path(), diags);
    if (!t) return std::nullopt;
    text = std::move(*t);
  }
  SourceId id = sources.add(src.name(), std::move(text));
  return workflow::lower(id, sources, diags);
}

}  // namespace

Module::Module(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Module> Module::load(const Source& src, const LoadOptions& options) {
  auto impl = std::make_shared<Impl>();
  impl->source = src;
  impl->sources = std::make_shared<SourceMap>();
  SourceMap& sources = *impl->sources;
  DiagnosticSink diags;
  auto fail = [&] { return Result<Module>(api::diagnostics_of(diags, impl->sources)); };
  if (!src.kind()) {
    diags.error("C0011", "cannot load '" + src.name() + "': expected a .rung source, a .keg file, a workflow .json document or an .onnx model");
    return fail();
  }
  impl->kind = *src.kind();
  if (impl->kind != SourceKind::onnx && (!options.dims.empty() || !options.bind.empty())) {
    diags.error("C0020", "cannot load '" + src.name() + "' with --dim or --bind: they bind an .onnx model's inputs at import")
        .note("a .rung, .keg or workflow program's symbolic dims bind from the inputs of each run");
    return fail();
  }
  std::optional<block::Program> program;
  switch (impl->kind) {
    case SourceKind::rung: program = load_rung(src, sources, diags); break;
    case SourceKind::workflow: program = load_workflow(src, sources, diags); break;
    case SourceKind::onnx: program = api::load_onnx(src, options, diags, impl->provenance); impl->declares_determinism = false; break;
    case SourceKind::keg: {
      ops::RegistrySignatures signatures;
      std::optional<KegFile> keg;
      if (src.in_memory()) keg = load_keg_bytes(src.name(), src.content(), sources, diags, &signatures);
      else keg = load_keg(src.path(), sources, diags, &signatures);
      if (!keg) break;
      impl->keg_attachments = keg->attachments;
      for (const auto& a : keg->attachments)
        if (a.kind == static_cast<std::uint32_t>(keg::SectionKind::provenance)) impl->provenance.assign(a.payload.begin(), a.payload.end());
      impl->keg_source = keg->source;
      // A file `rung build` wrote carries the whole program, its declared determinism included;
      // a bare graph declares none (Program::compile asks for it).
      if (block::blockir_section(*keg)) {
        Graph g = std::move(keg->graph);
        program = block::read_blockir(*keg, std::move(g), diags);
        // What rung::graph functions save: a program that leaves the tier to its compiler.
        if (program && program->determinism.tier.empty()) impl->declares_determinism = false;
      } else {
        impl->declares_determinism = false;
        program = block::program_from_graph(std::move(keg->graph), fs::path(src.name()).stem().string(), {"", ""});
      }
      break;
    }
  }
  if (!program || diags.has_errors()) return fail();
  impl->program = std::move(*program);
  Diagnostics warnings = api::diagnostics_of(diags, impl->sources);
  return Result<Module>(Module(std::move(impl)), std::move(warnings));
}

const std::string& Module::name() const { return impl_->program.module; }
SourceKind Module::kind() const { return impl_->kind; }
const Source& Module::source() const { return impl_->source; }
const std::string& Module::declared_tier() const { return impl_->program.determinism.tier; }
const std::string& Module::declared_tolerance() const { return impl_->program.determinism.tolerance; }
std::vector<EntryInfo> Module::functions() const { return api::entries_of(impl_->program, false); }

namespace api {

std::vector<EntryInfo> entries_of(const block::Program& p, bool exported_only) {
  std::vector<EntryInfo> out;
  auto param = [](const block::Slot& s) {
    Param q{s.name, s.type.to_string(), s.type.dtype};
    for (const auto& d : s.type.shape) {
      q.shape.push_back(d.is_static() ? static_cast<std::int64_t>(d.extent()) : -1);
      q.dims.push_back(d.to_string());
    }
    return q;
  };
  for (const auto& f : p.functions) {
    if (exported_only && !f.exported) continue;
    EntryInfo e{f.name, f.exported, {}, {}, p.tier_of(f)};
    for (auto id : f.params) e.params.push_back(param(f.slots[id]));
    for (auto id : f.results) e.results.push_back(param(f.slots[id]));
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const EntryInfo& a, const EntryInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace api
}  // namespace rung
