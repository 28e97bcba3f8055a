// Modules: `import a.b;` loads the file a/b.rung next to the importing file (its items
// then read `b.f`, `b.Params`), `import a.b as c;` names it c, `import a.b.{f, g as h};`
// brings items in unqualified. `std` is built in: `std.io` (print, read_csv), `std.ops`
// (every op of the registry), `std.nn` (the nn and softmax families) and `std.<family>` for
// each op family. Every file is loaded once; an import cycle is E2602. Items of an imported
// file are named `<module>.<item>` in the lowered program.
#include <filesystem>

#include "frontend/lowerer.h"
#include "ops/registry.h"
#include "syntax/load.h"
#include "syntax/parse.h"

namespace rung::frontend {
namespace {

namespace fs = std::filesystem;

bool std_module_has(const std::string& module, const std::string& name) {
  if (module == "io") return name == "print" || name == "read_csv";
  const ops::OpDef* op = ops::op_registry().find(name);
  if (!op) return false;
  if (module == "ops") return true;
  if (module == "nn") return op->family == "nn" || op->family == "softmax";
  return op->family == module;
}

bool std_module_exists(const std::string& module) {
  if (module == "io" || module == "ops" || module == "nn") return true;
  for (const ops::OpDef* op : ops::op_registry().all())
    if (op->family == module) return true;
  return false;
}

}  // namespace

Span Lowerer::span_in(const Module* m, const ast::AstNode& n) const {
  return n ? Span{m ? m->src : src_, n.range().begin, n.range().end} : Span{m ? m->src : src_, 0, 0};
}

Module* Lowerer::enter(Module* m) {
  Module* prev = mod_;
  mod_ = m;
  if (m) src_ = m->src;
  return prev;
}

StructInfo* Lowerer::find_struct(std::string_view name) {
  std::string key;
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) {  // `layers.Params`
    auto it = mod_->imports.find(name.substr(0, dot));
    if (it == mod_->imports.end()) return nullptr;
    auto s = it->second->structs.find(name.substr(dot + 1));
    if (s == it->second->structs.end()) return nullptr;
    key = s->second;
  } else {
    auto s = mod_->structs.find(name);
    if (s == mod_->structs.end()) return nullptr;
    key = s->second;
  }
  auto it = structs_.find(key);
  return it == structs_.end() ? nullptr : &it->second;
}

void Lowerer::load_modules() {
  auto main = std::make_unique<Module>();
  main->src = src_;
  main->file = file_;
  main->dir = fs::path(sources_.get(src_).name()).parent_path().string();
  Module* m = main.get();
  modules_.push_back(std::move(main));
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(sources_.get(src_).name(), ec);
  if (!ec) modules_by_path_[canon.string()] = m;
  m->state = 1;
  resolve_imports(*m);
  m->state = 2;
}

Module* Lowerer::load_module(const std::string& path, Span import_span, const std::string& prefix) {
  std::error_code ec;
  std::string key = fs::weakly_canonical(path, ec).string();
  if (ec) key = path;
  if (auto it = modules_by_path_.find(key); it != modules_by_path_.end()) {
    Module* t = it->second;
    if (t->state == 1) {
      auto& d = d_.error("E2602", "import cycle: `" + fs::path(path).stem().string() + "` is already being imported")
                    .primary(import_span, "this import closes the cycle");
      if (t->loading_import.valid()) d.secondary(t->loading_import, "the cycle starts here");
      d.note("modules import each other in a circle; move the shared items to a module both import");
      return nullptr;
    }
    return t;
  }
  if (!fs::is_regular_file(path, ec)) {
    d_.error("E2601", "no module file `" + path + "`").primary(import_span, "imported here")
        .note("`import a.b;` loads a/b.rung next to the importing file");
    return nullptr;
  }
  auto id = syntax::load_source(path, sources_, d_);
  if (!id) return nullptr;
  std::size_t errors = d_.error_count();
  trees_.push_back(syntax::check_syntax(sources_, *id, d_));
  if (d_.error_count() > errors) return nullptr;
  auto mod = std::make_unique<Module>();
  mod->src = *id;
  mod->file = ast::cast<ast::SourceFile>(trees_.back().root());
  mod->dir = fs::path(path).parent_path().string();
  // The prefix: the module's last name, made unique.
  std::string p = prefix;
  for (int n = 2; std::any_of(modules_.begin(), modules_.end(), [&](const auto& x) { return x->prefix == p + "."; }); ++n)
    p = prefix + std::to_string(n);
  mod->prefix = p + ".";
  Module* t = mod.get();
  modules_.push_back(std::move(mod));
  modules_by_path_[key] = t;
  Module* prev = enter(t);
  t->state = 1;
  resolve_imports(*t);
  t->state = 2;
  enter(prev);
  return t;
}

void Lowerer::resolve_imports(Module& m) {
  Module* prev = enter(&m);
  // Declarations first, so that `import a.{f}` in a module finds a's items.
  for (const ast::Item& item : m.file.items()) {
    auto imp = ast::cast<ast::Import>(item.syntax());
    if (!imp || !imp.path()) continue;
    std::vector<std::string> segs;
    for (const ast::NameRef& s : imp.path().segments()) segs.emplace_back(s.text());
    if (segs.empty()) continue;
    Span at = span(imp);
    std::string alias = imp.rename() && imp.rename().name() ? std::string(imp.rename().name().text()) : segs.back();
    if (segs[0] == "std") {
      if (segs.size() != 2 || !std_module_exists(segs[1])) {
        d_.error("E2601", "no module `" + imp.path().text() + "`").primary(span(imp.path()), "not a module")
            .note("built-in modules: std.io, std.ops, std.nn and std.<op family>");
        continue;
      }
      if (auto list = imp.list()) {
        for (const ast::ImportName& n : list.names()) {
          if (!n.name_ref()) continue;
          std::string name(n.name_ref().text());
          if (!std_module_has(segs[1], name)) {
            d_.error("E2603", "module `std." + segs[1] + "` has no `" + name + "`").primary(span(n.name_ref()), "not in std." + segs[1]);
            continue;
          }
          std::string as = n.rename() && n.rename().name() ? std::string(n.rename().name().text()) : name;
          m.op_aliases[as] = name;
        }
      } else {
        m.std_imports[alias] = segs[1];
      }
      continue;
    }
    fs::path file = fs::path(m.dir);
    for (const auto& s : segs) file /= s;
    file += ".rung";
    m.loading_import = at;
    Module* t = load_module(file.string(), at, segs.back());
    m.loading_import = Span{};
    if (!t) continue;
    if (auto list = imp.list()) {
      for (const ast::ImportName& n : list.names()) {
        if (!n.name_ref()) continue;
        std::string name(n.name_ref().text());
        std::string as = n.rename() && n.rename().name() ? std::string(n.rename().name().text()) : name;
        std::string key = t->prefix + name;
        if (fns_.count(key)) m.fns[as] = key;
        else if (structs_.count(key)) m.structs[as] = key;
        else
          d_.error("E2603", "module `" + imp.path().text() + "` has no item `" + name + "`")
              .primary(span(n.name_ref()), "not found there");
      }
    } else {
      m.imports[alias] = t;
    }
  }
  enter(prev);
  declare_items(m);
}

std::optional<CallSite> Lowerer::call_site(const ast::Expr& e, bool quiet) {
  CallSite cs;
  cs.at = span(e);
  std::string name;
  if (auto c = ast::cast<ast::CallExpr>(e.syntax())) {
    auto p = ast::cast<ast::PathExpr>(c.callee().syntax());
    if (!p || !p.name_ref()) return std::nullopt;
    name = std::string(p.name_ref().text());
    cs.args = c.arg_list();
    cs.callee = span(p);
    if (lookup(name)) return std::nullopt;  // a variable: not callable (call() says so)
    static const char* builtins[] = {"print", "read_csv", "copy", "value_and_grad", "to_host", "to_device", "to_pinned", "to_unified"};
    for (const char* b : builtins)
      if (name == b) {
        cs.kind = CallSite::Kind::builtin, cs.name = name;
        return cs;
      }
    if (auto f = mod_->fns.find(name); f != mod_->fns.end()) {
      cs.kind = CallSite::Kind::user, cs.fn = &fns_.find(f->second)->second, cs.name = cs.fn->name;
      return cs;
    }
    if (is_constructor(name)) {  // after the module's own functions: a user `fn zeros` wins
      cs.kind = CallSite::Kind::builtin, cs.name = name;
      return cs;
    }
    std::string op_name = name;
    if (auto a = mod_->op_aliases.find(name); a != mod_->op_aliases.end()) op_name = a->second;
    if (op_name == "print" || op_name == "read_csv") {
      cs.kind = CallSite::Kind::builtin, cs.name = op_name;
      return cs;
    }
    cs.op = ops::op_registry().find(op_name);
    if (!cs.op) return std::nullopt;  // unknown: call() reports it with a suggestion
    cs.kind = CallSite::Kind::op, cs.name = op_name;
    return cs;
  }
  auto mc = ast::cast<ast::MethodCallExpr>(e.syntax());
  if (!mc || !mc.method()) return std::nullopt;
  auto recv = ast::cast<ast::PathExpr>(mc.receiver().syntax());
  if (!recv || !recv.name_ref() || lookup(recv.name_ref().text())) return std::nullopt;  // a method of a value
  std::string module(recv.name_ref().text());
  name = std::string(mc.method().text());
  cs.args = mc.arg_list();
  cs.callee = Span{src_, mc.receiver().range().begin, mc.method().range().end};
  if (auto it = mod_->imports.find(module); it != mod_->imports.end()) {
    auto f = it->second->fns.find(name);
    if (f == it->second->fns.end() || f->second != it->second->prefix + name) {
      if (!quiet) d_.error("E2001", "module `" + module + "` has no function `" + name + "`").primary(span(mc.method()), "not found");
      return std::nullopt;
    }
    cs.kind = CallSite::Kind::user, cs.fn = &fns_.find(f->second)->second, cs.name = cs.fn->name;
    return cs;
  }
  if (auto it = mod_->std_imports.find(module); it != mod_->std_imports.end()) {
    if (!std_module_has(it->second, name)) {
      if (!quiet) d_.error("E2001", "module `std." + it->second + "` has no `" + name + "`").primary(span(mc.method()), "not found");
      return std::nullopt;
    }
    if (it->second == "io") cs.kind = CallSite::Kind::builtin;
    else cs.kind = CallSite::Kind::op, cs.op = ops::op_registry().find(name);
    cs.name = name;
    return cs;
  }
  if (!quiet)
    d_.error("E2001", "unknown module or variable `" + module + "`").primary(span(recv), "not found")
        .note("import a module first: `import lib." + module + ";`");
  return std::nullopt;
}

}  // namespace rung::frontend
