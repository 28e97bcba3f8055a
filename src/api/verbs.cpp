// The verbs' shared pieces (api/verbs.h): sources, loading, the pass pipeline.
#include "api/verbs.h"

#include <map>
#include <sstream>

#include "base/hash.h"
#include "ir/block/verify.h"
#include "ir/graph/printer.h"
#include "frontend/frontend.h"
#include "passes/pass.h"
#include "plan/size.h"
#include "syntax/load.h"
#include "syntax/parse.h"

namespace rung::api {

std::optional<SourceId> add_source(const Source& src, SourceMap& sources, DiagnosticSink& diags) {
  if (!src.in_memory()) return syntax::load_source(src.path(), sources, diags);
  if (src.content().size() > syntax::kMaxSourceBytes) {
    diags.error("C0002", "'" + src.name() + "' is larger than the limit of " + std::to_string(syntax::kMaxSourceBytes) + " bytes");
    return std::nullopt;
  }
  return sources.add(src.name(), src.content());
}

std::optional<block::Program> lower_rung(const Source& src, SourceMap& sources, DiagnosticSink& diags) {
  if (!src.in_memory()) return frontend::compile_file(src.path(), sources, diags);
  std::optional<SourceId> id = add_source(src, sources, diags);
  if (!id) return std::nullopt;
  syntax::SyntaxTree tree = syntax::check_syntax(sources, *id, diags);
  if (diags.has_errors()) return std::nullopt;
  return frontend::lower(tree, sources, *id, diags);
}

std::optional<plan::Device> plan_device(const std::string& name, DiagnosticSink& diags) {
  auto d = plan::device_from_name(name);
  if (!d) diags.error("L0008", "unknown device `" + name + "`: the devices are cpu, cuda and webgpu");
  return d;
}

void bind_dims(const std::vector<std::string>& dims, plan::PlanOptions& o, DiagnosticSink& diags) {
  for (const auto& d : dims) {
    auto eq = d.find('=');
    auto v = eq == std::string::npos ? std::nullopt : plan::parse_size(d.substr(eq + 1));
    if (!v || eq == 0) diags.error("L0008", "--dim expects NAME=EXTENT, got `" + d + "`");
    else o.dims[d.substr(0, eq)] = *v;
  }
}

void take(const Diagnostics& from, DiagnosticSink& diags, std::shared_ptr<const SourceMap>& sources) {
  const Diagnostics::Impl& d = from.impl();
  if (!sources) sources = d.sources;
  diags.append(d.sink);
}

std::optional<Program> load_program(const Source& src, const LoadDeterminism& det, DiagnosticSink& diags,
                                    std::shared_ptr<const SourceMap>& sources) {
  auto module = Module::load(src);
  if (!module) {
    take(module.diagnostics(), diags, sources);
    return std::nullopt;
  }
  sources = module->impl().sources;
  take(module.diagnostics(), diags, sources);
  CompileOptions o;
  o.fallback_tier = det.fallback_tier;
  o.tolerance = det.tolerance;
  if (det.tier_as_fallback && !module->impl().declares_determinism) o.fallback_tier = det.tier;
  else o.tier = det.tier;
  auto program = Program::compile(*module, o);
  take(program.diagnostics(), diags, sources);
  if (!program) return std::nullopt;
  return std::move(program).value();
}

bool run_pipeline(Graph& g, const PassPipeline& pipeline, DiagnosticSink& diags) {
  PipelineOptions po;
  po.passes = pipeline.passes;
  po.print_after.insert(pipeline.print_after.begin(), pipeline.print_after.end());
  const auto& out = pipeline.print;
  po.print = [&out](std::string_view pass, int iter, const Graph& graph, bool changed) {
    emit(out, "// ----- after " + std::string(pass) + " (iteration " + std::to_string(iter) + ")" + (changed ? "" : " (unchanged)") + "\n");
    if (changed) emit(out, print_regions(graph));
  };
  PassManager pm(po);
  PassContext ctx{diags};
  bool ok = pm.run(g, ctx);
  if (pipeline.stats) emit(out, format_stats(pm.stats()) + "(" + std::to_string(pm.iterations()) + " pipeline iterations)\n");
  return ok;
}

namespace {

// Every compute statement of the program, nested ones included (iteratively: depth is data).
template <typename F>
void for_each_compute(block::Program& p, F&& f) {
  std::vector<std::vector<block::Stmt>*> stack;
  for (auto& fn : p.functions) stack.push_back(&fn.body);
  while (!stack.empty()) {
    auto* list = stack.back();
    stack.pop_back();
    for (auto& s : *list) {
      if (s.kind == block::StmtKind::compute) f(s);
      for (auto* nested : {&s.cond_body, &s.body, &s.else_body}) stack.push_back(nested);
    }
  }
}

}  // namespace

// Every region the BlockIR computes in is kept through the passes (exported under a name no
// function can have: passes keep exports by name); then each compute statement names what
// the passes made of its region (a region's hash is its content) and the program's own
// exports are restored.
bool run_pipeline(block::Program& p, const PassPipeline& pipeline, DiagnosticSink& diags) {
  Graph& g = p.graph;
  const std::map<std::string, RegionId> own = g.exports();
  std::map<Hash256, std::string> alias;  // region a statement computes in -> its export for the run
  bool missing = false;
  for_each_compute(p, [&](const block::Stmt& s) {
    auto r = g.find_region(s.region);
    if (!r) {
      missing = true;
      return;
    }
    auto [it, fresh] = alias.emplace(s.region, "%blockir/" + s.region.hex());
    if (fresh) g.set_export(it->second, *r);
  });
  if (missing) return block::verify(p, diags);  // B0002 names the statement
  if (!run_pipeline(g, pipeline, diags)) return false;
  std::map<Hash256, Hash256> renamed;
  for (const auto& [old_hash, name] : alias) renamed.emplace(old_hash, g.region(g.exports().at(name)).hash);
  for_each_compute(p, [&](block::Stmt& s) { s.region = renamed.at(s.region); });
  // The same nodes and regions (same ids), with the program's own exports only.
  Graph out;
  out.reserve(g.node_count());
  for (const auto& n : g.nodes()) out.adopt_node(n);
  for (const auto& r : g.regions()) out.adopt_region(r);
  for (const auto& [name, r] : own) out.set_export(name, g.exports().at(name));
  g = std::move(out);
  return block::verify(p, diags);
}

}  // namespace rung::api
