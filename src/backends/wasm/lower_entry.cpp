// Walks the entry exactly as the planner does (src/plan/planner.cpp: statements in order,
// each region's nodes in nodes_in_region order, calls entered), taking the plan's dispatches
// and buffers one by one, so every value sits where the plan put it. A dispatch that does
// not match the walk is an internal error: the plan and the program disagree.
#include "backends/wasm/lower_entry.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/graph/walk.h"

namespace rung::wasm {

namespace {

class Lowering {
 public:
  Lowering(const block::Program& p, const plan::MemoryPlan& plan, DiagnosticSink& d) : p_(p), plan_(plan), d_(d) {}

  std::optional<ModuleSource> run() {
    const block::Function* f = p_.find(plan_.entry);
    if (!f) return internal("the plan's entry `" + plan_.entry + "` is not a function of the program");
    std::map<block::SlotId, std::uint32_t> slots;
    for (block::SlotId s : f->params) {
      auto b = claim(f->name + ": argument " + f->slots.at(s).name);
      if (!b) return std::nullopt;
      slots[s] = *b;
      out_.inputs.push_back({f->slots.at(s).name, tensor(*b)});
    }
    bool returned = false;
    for (const auto& s : f->body) {
      if (returned) break;
      switch (s.kind) {
        case block::StmtKind::compute: {
          std::vector<std::uint32_t> args;
          for (auto a : s.args) args.push_back(slots.at(a));
          auto r = p_.graph.find_region(s.region);
          if (!r) return internal("`" + f->name + "` computes a region that is not in the graph");
          auto res = region(*r, args, f->name);
          if (!res) return std::nullopt;
          std::vector<std::uint32_t> dest;
          for (auto id : s.results) {
            auto b = claim(f->name + ": slot " + f->slots.at(id).name);
            if (!b) return std::nullopt;
            dest.push_back(*b);
          }
          store(*res, dest);
          for (std::size_t i = 0; i < dest.size(); ++i) slots[s.results[i]] = dest[i];
          break;
        }
        case block::StmtKind::assign: {
          std::vector<std::uint32_t> src{slots.at(s.args.at(0))};
          auto b = claim(f->name + ": slot " + f->slots.at(s.results.at(0)).name);
          if (!b) return std::nullopt;
          store(src, {*b});
          slots[s.results[0]] = *b;
          break;
        }
        case block::StmtKind::ret:
          for (std::size_t i = 0; i < s.args.size(); ++i) {
            std::string name = i < f->results.size() ? f->slots.at(f->results[i]).name : "result" + std::to_string(i);
            out_.outputs.push_back({name, tensor(slots.at(s.args[i]))});
          }
          returned = true;
          break;
        default:
          d_.error("T0004", "`" + f->name + "` has a `" + std::string(block::stmt_kind_name(s.kind)) +
                                "` statement: a wasm module runs straight-line entries only (compute statements, "
                                "assignments and a return; no loops, conditionals, calls of functions, prints or reads)")
              .primary(s.span);
          return std::nullopt;
      }
    }
    if (failed_) return std::nullopt;
    if (!returned) return internal("`" + f->name + "` has no return statement");
    if (next_dispatch_ != plan_.dispatches.size()) return internal("the plan has dispatches the entry's walk did not reach");
    std::uint64_t host = 0;
    if (auto it = plan_.arenas.find(MemSpace::host); it != plan_.arenas.end()) host = it->second;
    out_.arena_bytes = host + staging_bytes_;
    staging_offset_ = host;
    out_.cpp = module_text(*f);
    return std::move(out_);
  }

 private:
  std::optional<ModuleSource> internal(const std::string& why) {
    d_.error("T0099", "internal error lowering the plan to wasm: " + why + " (a bug in rung; please report it)");
    return std::nullopt;
  }

  ArenaTensor tensor(std::uint32_t id) const {
    const plan::Buffer& b = plan_.buffers.at(id);
    return {b.offset, b.dtype, b.shape, b.bytes};
  }

  // The next buffer the planner allocated under `label` (in allocation order, after those
  // already taken). An in-place result appends ", then in place: ..." to the name.
  std::optional<std::uint32_t> claim(const std::string& label) {
    for (std::uint32_t id = next_buffer_; id < plan_.buffers.size(); ++id) {
      const std::string& w = plan_.buffers[id].what;
      if (w == label || w.rfind(label + ", then in place", 0) == 0) {
        next_buffer_ = id + 1;
        if (plan_.buffers[id].space != MemSpace::host) {
          internal("buffer `" + label + "` is not in host memory");
          return std::nullopt;
        }
        return id;
      }
    }
    internal("the plan has no buffer `" + label + "`");
    return std::nullopt;
  }

  // `path` names the caller as the planner does ("fn", then "fn / region", ...).
  std::optional<std::vector<std::uint32_t>> region(RegionId rid, const std::vector<std::uint32_t>& args, const std::string& path) {
    const Graph& g = p_.graph;
    const Region& r = g.region(rid);
    const std::string here = path + " / " + r.name;
    std::map<NodeId, std::vector<std::uint32_t>> values;
    for (std::size_t i = 0; i < r.params.size() && i < args.size(); ++i) values[r.params[i]] = {args[i]};
    std::set<NodeId> params(r.params.begin(), r.params.end());
    for (NodeId n : nodes_in_region(g, r)) {
      if (params.count(n)) continue;
      const Node& node = g.node(n);
      if (node.opcode == opcode::kCall) {
        auto callee = g.find_region(node.attrs.at("callee").as<Hash256>());
        if (!callee) {
          internal(describe_node(g, n) + " calls a region that is not in the graph");
          return std::nullopt;
        }
        std::vector<std::uint32_t> ins;
        for (const auto& in : node.inputs) ins.push_back(values.at(in.node).at(in.output));
        auto res = region(*callee, ins, here);
        if (!res) return std::nullopt;
        // The planner frees the callee's results and gives the call's outputs buffers of
        // their own: the results are copied there.
        std::vector<std::uint32_t> outs;
        for (std::size_t i = 0; i < node.outputs.size(); ++i) {
          auto b = claim(here + ": " + describe_node(g, n) + (node.outputs.size() > 1 ? " output " + std::to_string(i) : ""));
          if (!b) return std::nullopt;
          outs.push_back(*b);
        }
        store(*res, outs);
        values[n] = outs;
        continue;
      }
      if (next_dispatch_ >= plan_.dispatches.size() || plan_.dispatches[next_dispatch_].node != n) {
        internal("the plan's dispatch " + std::to_string(next_dispatch_) + " is not " + describe_node(g, n));
        return std::nullopt;
      }
      const plan::Dispatch& d = plan_.dispatches[next_dispatch_++];
      if (d.inputs.size() != node.inputs.size() || d.tiles != 1) {
        internal("dispatch " + std::to_string(next_dispatch_ - 1) + " binds its operands in a way the walk does not model");
        return std::nullopt;
      }
      std::vector<ArenaTensor> ins, outs;
      for (auto b : d.inputs) ins.push_back(tensor(b));
      for (auto b : d.outputs) outs.push_back(tensor(b));
      if (auto why = emit_dispatch(node, ins, outs, sink_)) {
        if (reported_.insert(node.opcode).second) {  // one diagnostic per op
          auto& diag = d_.error("T0002", *why + ": " + describe_node(g, n) + " in `" + r.name + "`");
          if (auto sp = p_.node_spans.find(node.hash); sp != p_.node_spans.end()) diag.primary(sp->second);
        }
        failed_ = true;
      }
      values[n] = d.outputs;
    }
    std::vector<std::uint32_t> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    return results;
  }

  // Region results (or a slot's value) into the buffers the plan gives their slots. The plan
  // frees the results before it allocates the slots, so a slot may overlap a result: memmove
  // is right for its own source, and when a slot overlaps another result still to be copied,
  // all of them pass through a staging area after the plan's arena.
  void store(const std::vector<std::uint32_t>& src, const std::vector<std::uint32_t>& dst) {
    auto overlaps = [&](std::uint32_t a, std::uint32_t b) {
      const plan::Buffer &x = plan_.buffers.at(a), &y = plan_.buffers.at(b);
      return x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
    };
    bool staged = false;
    for (std::size_t i = 0; i < dst.size(); ++i)
      for (std::size_t j = i + 1; j < src.size(); ++j) staged = staged || overlaps(dst[i], src[j]);
    auto copy = [&](const std::string& from, const std::string& to, std::uint64_t bytes) {
      if (from != to) sink_.body += "  wk::copy_bytes(" + from + ", " + to + ", " + std::to_string(bytes) + ");\n";
    };
    auto at = [](std::uint64_t off) { return "arena + " + std::to_string(off); };
    if (!staged) {
      for (std::size_t i = 0; i < dst.size() && i < src.size(); ++i)
        copy(at(plan_.buffers[src[i]].offset), at(plan_.buffers[dst[i]].offset), plan_.buffers[dst[i]].bytes);
      return;
    }
    std::uint64_t off = 0;
    std::vector<std::uint64_t> stage;
    for (std::size_t i = 0; i < dst.size() && i < src.size(); ++i) {
      stage.push_back(off);
      copy(at(plan_.buffers[src[i]].offset), "staging + " + std::to_string(off), plan_.buffers[src[i]].bytes);
      off += (plan_.buffers[src[i]].bytes + 15) / 16 * 16;
    }
    for (std::size_t i = 0; i < stage.size(); ++i)
      copy("staging + " + std::to_string(stage[i]), at(plan_.buffers[dst[i]].offset), plan_.buffers[dst[i]].bytes);
    staging_bytes_ = std::max(staging_bytes_, off);
  }

  std::string module_text(const block::Function& f) const {
    auto offsets = [](const std::vector<PortInfo>& ports) {
      std::string s = "{";
      if (ports.empty()) s += "0";
      for (std::size_t i = 0; i < ports.size(); ++i) s += (i ? ", " : "") + std::to_string(ports[i].where.offset) + "u";
      return s + "}";
    };
    std::string arena = std::to_string(std::max<std::uint64_t>(out_.arena_bytes, 16));
    std::string s;
    s += "// Generated by `rung build --target wasm`: entry `" + f.name + "` of module `" + p_.module + "`.\n";
    s += "// The ExecPlan's arena is `arena`; run() is its dispatch list, in order.\n";
    s += "#include \"backends/wasm/kernels/all.h\"\n\n";
    s += "namespace wk = rung::wasm_kernels;\n\nnamespace {\n\n";
    s += "alignas(64) unsigned char arena[" + arena + "];\n";
    s += "unsigned char* const staging = arena + " + std::to_string(staging_offset_) + ";\n";
    s += "template <class T> T* P(unsigned offset) { return reinterpret_cast<T*>(arena + offset); }\n";
    s += "const unsigned kInputs[] = " + offsets(out_.inputs) + ";\n";
    s += "const unsigned kOutputs[] = " + offsets(out_.outputs) + ";\n\n";
    s += sink_.statics;
    s += "\n}  // namespace\n\nextern \"C\" {\n\n";
    s += "__attribute__((export_name(\"rung_abi\"))) unsigned rung_abi() { return " + std::to_string(kAbiVersion) + "; }\n";
    s += "__attribute__((export_name(\"input_ptr\"))) unsigned char* input_ptr(unsigned i) { return i < " +
         std::to_string(out_.inputs.size()) + " ? arena + kInputs[i] : nullptr; }\n";
    s += "__attribute__((export_name(\"output_ptr\"))) unsigned char* output_ptr(unsigned i) { return i < " +
         std::to_string(out_.outputs.size()) + " ? arena + kOutputs[i] : nullptr; }\n\n";
    s += "__attribute__((export_name(\"run\"))) int run() {\n" + sink_.body + "  (void)staging;\n  return 0;\n}\n\n}\n";
    return s;
  }

  const block::Program& p_;
  const plan::MemoryPlan& plan_;
  DiagnosticSink& d_;
  std::size_t next_dispatch_ = 0;
  std::uint32_t next_buffer_ = 0;
  std::uint64_t staging_bytes_ = 0, staging_offset_ = 0;
  std::set<std::string> reported_;
  bool failed_ = false;
  CodeSink sink_;
  ModuleSource out_;
};

}  // namespace

std::optional<ModuleSource> lower_entry(const block::Program& program, const plan::MemoryPlan& plan, DiagnosticSink& diags) {
  return Lowering(program, plan, diags).run();
}

}  // namespace rung::wasm
