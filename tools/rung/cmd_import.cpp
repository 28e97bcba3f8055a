// `rung import MODEL.onnx -o MODEL.keg`: an ONNX model as a rung program (one exported
// function `main` in registry ops), written as a .keg file with the model's provenance.
// `--list-ops` prints the node handlers with their opset ranges. The work is
// rung::import_onnx's (rung/onnx.h); docs/onnx.md has the codes.
#include <rung/onnx.h>

#include <cstdio>

#include "command.h"

namespace rung::cli {
namespace {

struct ImportArgs {
  std::string file;
  bool list_ops = false;
  std::vector<std::string> binds;  // NAME=FILE.npy, read into o.bind
  OnnxImportOptions o;
};

int list_ops() {
  if (!onnx_supported()) {
    std::fprintf(stderr, "rung: this rung was built without the ONNX importer (RUNG_ONNX=OFF)\n");
    return kExitDiagnostics;
  }
  std::printf("%-20s %-8s %s\n", "op", "opsets", "registry ops");
  for (const auto& h : onnx_handlers()) {
    std::string range = std::to_string(h.since) + "-" + std::to_string(h.until);
    std::printf("%-20s %-8s %s\n", h.op_type.c_str(), range.c_str(), h.how.c_str());
  }
  return kExitOk;
}

int run_import(const ImportArgs& a, const GlobalOptions& global) {
  if (a.list_ops) return list_ops();
  if (a.file.empty()) {
    std::fprintf(stderr, "rung import: MODEL is required (or --list-ops)\n");
    return kExitUsage;
  }
  OnnxImportOptions o = a.o;
  Diagnostics bad;
  for (const auto& spec : a.binds) {
    auto b = onnx_binding(spec);
    bad.append(b.diagnostics());
    if (b) o.bind.push_back(std::move(*b));
  }
  if (bad.has_errors()) return report(bad, global);
  auto imported = import_onnx(Source::file(a.file), o);
  if (imported) {
    std::string opsets;
    for (const auto& [domain, version] : imported->opsets) opsets += (opsets.empty() ? "" : ", ") + domain + " " + std::to_string(version);
    std::printf("wrote %s  fingerprint %s  graph %s  blockir %s\nonnx: IR version %lld, opsets %s, producer %s\n",
                imported->path.c_str(), imported->fingerprint.c_str(), imported->graph_fingerprint.c_str(), imported->blockir.c_str(),
                static_cast<long long>(imported->ir_version), opsets.c_str(),
                imported->producer.empty() ? "(none)" : imported->producer.c_str());
  }
  return report(imported.diagnostics(), global);
}

RUNG_COMMAND("import", "Import an ONNX model (.onnx) and write it as a .keg file",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ImportArgs>();
               sub.add_option("MODEL", a->file, "the .onnx model (external data is read from its folder only)");
               sub.add_option("-o,--output", a->o.output, "the .keg file to write (default: MODEL with .keg)");
               sub.add_option("--max-weights", a->o.max_weight_bytes, "the weights' byte budget (default 16 GiB; I0014 over it)");
               sub.add_option("--dim", a->o.dims, "bind a symbolic dim at import, NAME=EXTENT (repeatable): shape arithmetic over it folds");
               sub.add_option("--bind", a->binds,
                              "make a graph input a constant at import, NAME=FILE.npy (repeatable): shape-like operands computed from it fold");
               sub.add_flag("--list-ops", a->list_ops, "print the ONNX ops rung imports, with their opset ranges");
               return [a, &global] { return run_import(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
