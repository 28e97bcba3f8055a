// The public Diagnostics: the library's sink and the sources it points into, with the public
// messages made once. Rendering is the CLI's own (base/diagnostic_render.h).
#include <nlohmann/json.hpp>

#include "api/impl.h"
#include "base/diagnostic_render.h"

namespace rung {
namespace {

std::shared_ptr<Diagnostics::Impl> empty_impl() {
  static const auto none = std::make_shared<const SourceMap>();
  auto impl = std::make_shared<Diagnostics::Impl>();
  impl->sources = none;
  return impl;
}

Message message_of(const Diagnostic& d, const SourceMap& sources) {
  Message m{d.code, d.severity, d.message, std::nullopt, d.notes};
  if (const Label* l = d.primary_label(); l && l->span.valid() && l->span.source < sources.size()) {
    const SourceFile& f = sources.get(l->span.source);
    Location loc{f.name()};
    if (!f.binary()) {
      LineCol a = f.line_col(l->span.begin), b = f.line_col(l->span.end);
      loc.line = a.line;
      loc.column = a.column;
      loc.end_line = b.line;
      loc.end_column = b.column;
    }
    m.location = std::move(loc);
  }
  return m;
}

Diagnostics boundary(Severity s, std::string code, std::string text, std::vector<std::string> notes) {
  auto impl = empty_impl();
  Diagnostic& d = impl->sink.add(s, std::move(code), std::move(text));
  d.notes = std::move(notes);
  impl->messages.push_back(message_of(d, *impl->sources));
  return Diagnostics(std::move(impl));
}

}  // namespace

// Every empty Diagnostics shares one Impl: nothing mutates an Impl once it is shared (append
// makes a new one), and a run that reports nothing allocates nothing for it.
Diagnostics::Diagnostics() {
  static const std::shared_ptr<Impl> none = empty_impl();
  impl_ = none;
}
Diagnostics::Diagnostics(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Diagnostics::~Diagnostics() = default;
Diagnostics::Diagnostics(const Diagnostics&) = default;
Diagnostics& Diagnostics::operator=(const Diagnostics&) = default;
Diagnostics::Diagnostics(Diagnostics&&) noexcept = default;
Diagnostics& Diagnostics::operator=(Diagnostics&&) noexcept = default;

Diagnostics Diagnostics::error(std::string code, std::string text, std::vector<std::string> notes) {
  return boundary(Severity::Error, std::move(code), std::move(text), std::move(notes));
}
Diagnostics Diagnostics::warning(std::string code, std::string text, std::vector<std::string> notes) {
  return boundary(Severity::Warning, std::move(code), std::move(text), std::move(notes));
}

const std::vector<Message>& Diagnostics::messages() const { return impl_->messages; }
bool Diagnostics::empty() const { return impl_->messages.empty(); }
bool Diagnostics::has_errors() const { return impl_->sink.has_errors(); }
bool Diagnostics::contains(std::string_view code) const { return impl_->sink.contains(code); }

std::string Diagnostics::summary() const {
  const Message* pick = nullptr;
  for (const auto& m : impl_->messages)
    if (!pick || (m.severity == Severity::Error && pick->severity != Severity::Error)) pick = &m;
  if (!pick) return {};
  std::string s = pick->code + ": " + pick->text;
  if (pick->location)
    s += " (" + pick->location->file + (pick->location->line ? ":" + std::to_string(pick->location->line) + ":" +
                                                                   std::to_string(pick->location->column)
                                                             : std::string()) + ")";
  return s;
}

// Both sides' sources are kept: the other's spans are renumbered into one merged map.
void Diagnostics::append(const Diagnostics& other) {
  if (other.empty()) return;
  if (empty() && impl_->sources->size() == 0) {
    impl_ = other.impl_;
    return;
  }
  auto merged = std::make_shared<Impl>(*impl_);
  std::uint32_t base = static_cast<std::uint32_t>(merged->sources->size());
  if (other.impl_->sources != merged->sources && other.impl_->sources->size() > 0) {
    auto map = std::make_shared<SourceMap>(*merged->sources);
    for (std::size_t i = 0; i < other.impl_->sources->size(); ++i) {
      const SourceFile& f = other.impl_->sources->get(static_cast<SourceId>(i));
      map->add(f.name(), std::string(f.text()), f.binary());
    }
    merged->sources = std::move(map);
  } else {
    base = 0;
  }
  DiagnosticSink shifted;
  for (Diagnostic d : other.impl_->sink.all()) {
    for (auto& l : d.labels)
      if (l.span.valid()) l.span.source += base;
    for (auto& s : d.suggestions)
      if (s.span.valid()) s.span.source += base;
    Diagnostic& added = shifted.add(d.severity, d.code, d.message);
    added = std::move(d);
  }
  merged->sink.append(shifted);
  for (const auto& d : shifted.all()) merged->messages.push_back(message_of(d, *merged->sources));
  impl_ = std::move(merged);
}

std::string Diagnostics::text(bool color) const {
  RenderOptions opts;
  opts.color = color;
  return render_text(impl_->sink, *impl_->sources, opts);
}

std::string Diagnostics::json() const {
  if (empty()) return {};
  return to_json(impl_->sink, *impl_->sources).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace api {

Diagnostics diagnostics_of(const DiagnosticSink& sink, std::shared_ptr<const SourceMap> sources) {
  auto impl = std::make_shared<Diagnostics::Impl>();
  impl->sources = std::move(sources);
  impl->sink = sink;
  for (const auto& d : sink.all()) impl->messages.push_back(message_of(d, *impl->sources));
  return Diagnostics(std::move(impl));
}

Diagnostics diagnostics_of(const DiagnosticSink& sink, const SourceMap& sources) {
  if (sink.empty()) return Diagnostics();
  return diagnostics_of(sink, std::make_shared<const SourceMap>(sources));
}

}  // namespace api
}  // namespace rung
