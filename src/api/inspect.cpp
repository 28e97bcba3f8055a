// Looking at programs without running them (rung/inspect.h): check, parse, format, show,
// what a .keg file holds, the sample graph.
#include "rung/inspect.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "api/verbs.h"
#include "base/file_io.h"
#include "frontend/frontend.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/block/printer.h"
#include "ir/graph/keg.h"
#include "ir/graph/keg_format.h"
#include "ir/graph/printer.h"
#include "ir/graph/samples.h"
#include "plan/exec_plan.h"
#include "plan/exec_plan_codec.h"
#include "plan/memory_plan.h"
#include "syntax/dump.h"
#include "syntax/format.h"
#include "syntax/lexer.h"
#include "syntax/parse.h"
#include "workflow/workflow.h"
#if RUNG_API_HAVE_WEBGPU
#include "backends/webgpu/kernel_listing.h"
#include "ops/registry.h"
#endif

namespace rung {

namespace fs = std::filesystem;

Diagnostics check(const std::vector<Source>& list) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  for (const Source& src : list) {
    std::optional<SourceId> id = api::add_source(src, *sources, diags);
    if (!id) continue;
    bool workflow = src.in_memory() ? src.kind() == SourceKind::workflow : src.path().size() > 5 && src.path().ends_with(".json");
    if (workflow) {  // a workflow document: checked by lowering it
      (void)workflow::lower(*id, *sources, diags);
      continue;
    }
    std::size_t errors_before = diags.error_count();
    syntax::SyntaxTree tree = syntax::check_syntax(*sources, *id, diags);
    // The semantic stage (E2xxx) runs on trees without syntax errors.
    if (diags.error_count() == errors_before) frontend::check(tree, *sources, *id, diags);
  }
  return api::diagnostics_of(diags, sources);
}

SyntaxDump parse(const Source& src, const ParseOptions& options) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  SyntaxDump out;
  if (std::optional<SourceId> id = api::add_source(src, *sources, diags)) {
    std::string_view text = sources->get(*id).text();
    if (options.events) {
      syntax::Lexed lexed = syntax::lex(text, *id);
      out.text += syntax::dump_events(lexed, syntax::parse_events(lexed, *id));
    }
    if (options.tree || !options.events) out.text += syntax::dump_tree(syntax::parse(text, *id).tree);
    syntax::check_syntax(*sources, *id, diags);
  }
  out.diagnostics = api::diagnostics_of(diags, sources);
  return out;
}

namespace {

// The first line where `a` and `b` differ (1-based), and where it starts in `a`.
std::pair<std::uint32_t, std::uint32_t> first_difference(std::string_view a, std::string_view b) {
  std::uint32_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '\n') {
      ++line;
      line_start = static_cast<std::uint32_t>(i + 1);
    }
  return {line, line_start};
}

// Replaces the file's contents atomically, keeping its permission bits and writing through
// a symbolic link rather than over it.
bool replace_file(const std::string& path, const std::string& text, DiagnosticSink& diags) {
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (ec) target = path;
  struct stat st {};
  bool have_mode = ::stat(target.c_str(), &st) == 0;
  std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  if (!write_file_atomic(target.string(), bytes, diags)) return false;
  if (have_mode) ::chmod(target.c_str(), st.st_mode & 07777);
  return true;
}

}  // namespace

Formatted format(const std::vector<Source>& list, FormatMode mode) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  Formatted out;
  for (const Source& src : list) {
    std::optional<SourceId> id = api::add_source(src, *sources, diags);
    if (!id) continue;
    const std::string& file = src.name();
    bool has_file = !src.in_memory() && file != "-";  // standard input and bytes have nothing to rewrite
    std::string_view original = sources->get(*id).text();
    std::vector<Diagnostic> found;
    std::optional<std::string> formatted = syntax::format_source(original, *id, found);
    for (Diagnostic& d : found) {
      Diagnostic& added = diags.add(d.severity, d.code, d.message);
      added.labels = std::move(d.labels);
      added.notes = std::move(d.notes);
      added.suggestions = std::move(d.suggestions);
    }
    if (!formatted) continue;
    if (mode == FormatMode::check) {
      if (*formatted != original) {
        auto [line, start] = first_difference(original, *formatted);
        diags.error("E1902", "`" + file + "` is not formatted")
            .primary(Span{*id, start, start}, "first difference on line " + std::to_string(line))
            .note("run `rung fmt --write " + file + "` to format it");
      }
    } else if (mode == FormatMode::write) {
      if (*formatted != original && has_file) replace_file(file, *formatted, diags);
      else if (!has_file) out.text += *formatted;
    } else {
      out.text += *formatted;
    }
  }
  out.diagnostics = api::diagnostics_of(diags, sources);
  return out;
}

Result<std::string> show(const Source& src, const ShowOptions& o) {
  DiagnosticSink diags;
  std::shared_ptr<const SourceMap> sources;
  auto done = [&](std::string text) -> Result<std::string> {
    if (!sources) sources = std::make_shared<const SourceMap>();
    Diagnostics d = api::diagnostics_of(diags, sources);
    if (diags.has_errors()) return d;
    return Result<std::string>(std::move(text), std::move(d));
  };
  api::LoadDeterminism det;
  det.fallback_tier = "debug";  // for .keg files that declare none; showing does not run anything
  if (o.ir == "kernel") {
#if RUNG_API_HAVE_WEBGPU
    if (o.backend == "webgpu") {
      std::string text;
      if (!src.in_memory() && ops::op_registry().find(src.path()) && !fs::exists(src.path())) {
        webgpu::op_kernel_text(src.path(), o.types, text, diags);
      } else if (auto program = api::load_program(src, det, diags, sources)) {
        webgpu::graph_kernel_text(program->impl().program.graph, text, diags);
      }
      return done(std::move(text));
    }
#endif
    diags.error("C0017", "`--rung kernel` needs `--backend webgpu` (the backend whose kernels are generated source in this build), got `" +
                             o.backend + "`");
    return done({});
  }
  auto loaded = api::load_program(src, det, diags, sources);
  if (!loaded) return done({});
  const block::Program& program = loaded->impl().program;
  const Module::Impl& module = loaded->module().impl();
  const std::vector<KegAttachment>& sections = module.keg_attachments;
  const KegAttachment* stored = nullptr;
  for (const auto& a : sections)
    if (a.kind == static_cast<std::uint32_t>(keg::SectionKind::exec_plan)) stored = &a;
  if (o.ir == "plan" && stored) {  // the plan the file carries; decoding verifies its hash
    auto sp = plan::decode_exec_plan(stored->payload, stored->payload_offset, module.keg_source, diags);
    if (!sp) return done({});
    // A file with its BlockIR names the program the plan must have been made for.
    bool has_blockir = std::any_of(sections.begin(), sections.end(),
                                   [](const KegAttachment& a) { return a.kind == static_cast<std::uint32_t>(keg::SectionKind::blockir); });
    if (has_blockir && sp->program != program.hash()) {
      diags.error("K0025", "section 'exec_plan' was planned for another program than the file's BlockIR")
          .primary(Span{module.keg_source, static_cast<std::uint32_t>(stored->payload_offset),
                        static_cast<std::uint32_t>(stored->payload_offset + 1)})
          .note("planned from blockir " + sp->program.hex())
          .note("the file's blockir  " + program.hash().hex());
      return done({});
    }
    return done("stored in     " + src.name() + " (section exec_plan, hash verified; planned from blockir " + sp->program.hex() + ")\n" +
                plan::dispatch_text(sp->plan) + plan::summary_text(sp->plan));
  }
  if (o.ir == "plan") {  // the ExecPlan (cpu, symbolic dims need `rung plan --dim`)
    auto mp = plan::plan_program(program, {}, diags);
    if (!mp) return done({});
    return done(plan::dispatch_text(*mp) + plan::summary_text(*mp));
  }
  return done(o.ir == "block" ? block::print(program) : print_regions(program.graph));
}

Result<KegInfo> inspect_keg(const Source& src, bool nodes) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  auto fail = [&] { return Result<KegInfo>(api::diagnostics_of(diags, sources)); };
  std::optional<KegFile> keg = src.in_memory() ? load_keg_bytes(src.name(), src.content(), *sources, diags)
                                               : load_keg(src.path(), *sources, diags);
  if (!keg) return fail();
  std::optional<block::Program> program;
  if (block::blockir_section(*keg)) {
    program = block::read_blockir(*keg, keg->graph, diags);
    if (!program) return fail();
  }
  const Graph& g = keg->graph;
  KegInfo info;
  info.file = src.name();
  info.bytes = sources->get(0).text().size();
  info.major = keg->major;
  info.minor = keg->minor;
  // The program fingerprint (graph and BlockIR); a file without BlockIR is its graph alone.
  info.fingerprint = (program ? block::program_fingerprint(*program) : g.fingerprint()).hex();
  info.graph_fingerprint = g.fingerprint().hex();
  for (const auto& s : keg->sections)
    info.sections.push_back({std::string(keg::section_name(s.kind)), s.kind, s.flags, s.offset, s.length, s.checksum.hex()});
  info.nodes = g.node_count();
  info.regions = g.region_count();
  for (const auto& [name, r] : g.exports()) info.exports.push_back({name, g.region(r).hash.hex()});
  if (program) {
    KegBlockIR b{program->hash().hex(), program->module, program->determinism.tier, program->determinism.tolerance, {}};
    for (const auto& f : program->functions) b.functions.push_back({f.name, f.exported});
    info.blockir = std::move(b);
  }
  if (nodes) {
    nlohmann::json list = nlohmann::json::array();
    for (NodeId id = 0; id < g.node_count(); ++id) list.push_back(node_to_json(g, id));
    info.node_json = list.dump();
    info.node_text = list_nodes(g);
  }
  return Result<KegInfo>(std::move(info), api::diagnostics_of(diags, sources));
}

Result<WrittenKeg> write_sample(Sample, const std::string& path) {
  Graph g = sample_mlp();
  DiagnosticSink diags;
  auto bytes = write_keg(g);
  if (!write_file_atomic(path, bytes, diags)) return api::diagnostics_of(diags, SourceMap{});
  return WrittenKeg{path, bytes.size(), g.node_count(), g.fingerprint().hex(), print_regions(g)};
}

}  // namespace rung
