#include "runtime/backend_registry.h"

#include "runtime/interpreter.h"

namespace rung::runtime {

void BackendRegistry::add(BackendFactory f) {
  for (auto& existing : factories_)
    if (existing.name == f.name) {
      existing = std::move(f);
      return;
    }
  factories_.push_back(std::move(f));
}

const BackendFactory* BackendRegistry::find(std::string_view name) const {
  for (const auto& f : factories_)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& f : factories_) out.push_back(f.name);
  return out;
}

static std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::unique_ptr<OpBackend> BackendRegistry::create(std::string_view name, ops::Tier tier, DiagnosticSink& diags,
                                                   const BackendSettings& settings) const {
  const BackendFactory* f = find(name);
  if (!f) {
    auto& d = diags.error("C0015", "backend `" + std::string(name) + "` is not available in this build");
    d.note("available: " + joined(names()));
    return nullptr;
  }
  std::size_t before = diags.all().size();
  auto b = f->create(tier, diags, settings);
  if (!b && diags.all().size() > before) diags.last().note("backends in this build: " + joined(names()));
  if (!b && diags.all().size() == before)
    diags.error("C0015", "backend `" + std::string(name) + "` could not be started").note("backends in this build: " + joined(names()));
  return b;
}

namespace {

class OpBackendAdapter final : public ComputeBackend {
 public:
  explicit OpBackendAdapter(OpBackend& b) : b_(b), name_(ops::backend_name(b.id())) {}
  std::string_view name() const override { return name_; }
  std::optional<std::vector<ops::HostTensor>> run(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                  DiagnosticSink& diags) override {
    return b_.run_region(g, region, args, diags);
  }

 private:
  OpBackend& b_;
  std::string name_;
};

}  // namespace

std::unique_ptr<ComputeBackend> as_compute_backend(OpBackend& b) { return std::make_unique<OpBackendAdapter>(b); }

}  // namespace rung::runtime
