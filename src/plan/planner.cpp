// The abstract executor: walks the BlockIR program as src/runtime/interpreter.cpp does,
// with sizes instead of values, and records every allocation and release the executor
// makes (see memory_plan.h for the model).
#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "plan/memory_plan.h"
#include "plan/roles.h"
#include "plan/row_split.h"
#include "plan/tiling.h"
#include "runtime/in_place.h"
#include "runtime/slot_lifetimes.h"

namespace rung::plan {
namespace {

struct AVal {
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  MemSpace space = MemSpace::host;
  std::int64_t buffer = -1;  // the buffer holding it; -1: none (a borrowed value without one)
};

std::string type_text(DType dt, const std::vector<std::uint64_t>& shape, MemSpace space) {
  std::string s(dtype_name(dt));
  s += "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  s += "]";
  if (space != MemSpace::host) s += " @" + std::string(memspace_name(space));
  return s;
}

bool scalable(AllocClass c) { return c == AllocClass::inputs || c == AllocClass::working || c == AllocClass::activations; }

enum class Flow { next, returned, failed, broke, continued };  // broke/continued: to the innermost loop
// How much of the program a flow walks on to: a branch that leaves sooner gives way to one that goes on.
int reach(Flow f) { return f == Flow::next ? 3 : f == Flow::continued ? 2 : f == Flow::broke ? 1 : 0; }

// Row scaling in force for one region invocation: dim-0 extents replaced (batch, stream).
using Rows = std::map<std::uint64_t, std::uint64_t>;

class Planner {
 public:
  Planner(const block::Program& p, const PlanOptions& o, DiagnosticSink& d) : p_(p), o_(o), d_(d), roles_(p) {}

  std::optional<MemoryPlan> run() {
    const block::Function* f = nullptr;
    std::string entry = o_.entry;
    if (entry.empty()) {
      std::vector<const block::Function*> exported;
      for (const auto& fn : p_.functions)
        if (fn.exported) exported.push_back(&fn);
      if (exported.size() != 1) {
        std::string list;
        for (const auto* e : exported) list += (list.empty() ? "" : ", ") + e->name;
        d_.error("L0001", "choose the function to plan with --entry NAME").note("exported: " + (list.empty() ? std::string("none") : list));
        return std::nullopt;
      }
      f = exported[0];
    } else if (!(f = p_.find(entry))) {
      d_.error("L0001", "no function `" + entry + "` in module `" + p_.module + "`");
      return std::nullopt;
    }
    plan_.device = o_.device;
    plan_.entry = f->name;
    if (o_.device_model) plan_.left_out = o_.device_model->left_out();
    find_batch_dim(*f);
    if (failed_) return std::nullopt;
    // Entry arguments: held for the whole run, sized from their declared types.
    std::vector<AVal> args;
    site("entry " + f->name + ": arguments");
    for (block::SlotId s : f->params) {
      const Slot& slot = f->slots.at(s);
      auto shape = size_of(slot.type, {}, "argument `" + slot.name + "` of `" + f->name + "`");
      if (!shape) return std::nullopt;
      AVal v{slot.type.dtype, *shape, slot.type.space, -1};
      v.buffer = alloc(v, AllocClass::inputs, f->name + ": argument " + slot.name);
      args.push_back(v);
    }
    auto res = call(*f, args, 0);
    if (!res || failed_) return std::nullopt;
    site("entry " + f->name + ": end");
    for (const auto& a : args) release(a.buffer);
    return std::move(plan_);
  }

 private:
  using Slot = block::Slot;
  struct Frame {
    const block::Function* f = nullptr;
    std::vector<std::optional<AVal>> slots;
    std::vector<bool> borrowed;
    std::map<std::string, std::uint64_t> bindings;
    std::vector<AVal> returned;
    int depth = 0;
    const runtime::SlotDrops* drops = nullptr;
  };

  // --- sizes ------------------------------------------------------------------------------

  // Concrete extents of a declared type under `bindings` (plus --dim), or an L0002 error.
  std::optional<std::vector<std::uint64_t>> size_of(const TensorType& t, const std::map<std::string, std::uint64_t>& bindings,
                                                    const std::string& what) {
    std::vector<std::uint64_t> out;
    for (const Dim& dim : t.shape) {
      if (dim.is_static()) {
        out.push_back(dim.extent());
        continue;
      }
      if (auto it = bindings.find(dim.name()); it != bindings.end()) out.push_back(it->second);
      else if (auto jt = o_.dims.find(dim.name()); jt != o_.dims.end()) out.push_back(jt->second);
      else if (dim.name() == plan_.batch_dim && o_.batch) out.push_back(*o_.batch);
      else {
        fail("L0002", what + " has type " + t.to_string() + ", and nothing gives `" + dim.name() + "` a size")
            .note("pass --dim " + dim.name() + "=SIZE" + (dim.name() == plan_.batch_dim ? " or --batch SIZE" : std::string()));
        return std::nullopt;
      }
    }
    return out;
  }
  std::uint64_t bytes_of(DType dt, const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = 1;
    for (auto e : shape) {
      if (e != 0 && n > UINT64_MAX / e) return UINT64_MAX;
      n *= e;
    }
    return storage_bytes(dt, n).value_or(UINT64_MAX);
  }
  // Binds symbols of a declared type from a concrete shape (first sight wins, as fit_type).
  static void bind(const TensorType& declared, const std::vector<std::uint64_t>& shape, std::map<std::string, std::uint64_t>& b) {
    for (std::size_t i = 0; i < declared.shape.size() && i < shape.size(); ++i)
      if (!declared.shape[i].is_static()) b.emplace(declared.shape[i].name(), shape[i]);
  }

  // The batch dim: a symbolic leading dim of the entry's arguments, else the symbol or the
  // shared leading extent of the non-differentiated operands of gradient regions.
  void find_batch_dim(const block::Function& entry) {
    for (block::SlotId s : entry.params) {
      const TensorType& t = entry.slots.at(s).type;
      if (!t.shape.empty() && !t.shape[0].is_static()) {
        plan_.batch_dim = t.shape[0].name();
        if (auto it = o_.dims.find(plan_.batch_dim); it != o_.dims.end()) plan_.batch_extent = it->second;
        if (o_.batch) plan_.batch_extent = *o_.batch;
        return;
      }
    }
  }
  void note_gradient_batch(RegionId r, std::size_t k, const std::vector<AVal>& args) {
    if (!plan_.batch_dim.empty() && plan_.batch_extent) return;
    const Region& reg = p_.graph.region(r);
    std::optional<std::uint64_t> rows;
    for (std::size_t i = k; i < args.size(); ++i) {
      if (args[i].shape.empty()) return;
      if (rows && *rows != args[i].shape[0]) return;
      rows = args[i].shape[0];
    }
    if (!rows) return;
    plan_.batch_dim = "rows fed to " + reg.name;
    plan_.batch_extent = *rows;
  }

  // --- events -------------------------------------------------------------------------------

  void site(std::string text, std::optional<std::uint32_t> dispatch = std::nullopt) {
    plan_.sites.push_back({std::move(text), dispatch});
  }
  std::uint32_t alloc(const AVal& v, AllocClass cls, std::string what, std::optional<std::uint64_t> bytes = std::nullopt) {
    Buffer b;
    b.id = static_cast<std::uint32_t>(plan_.buffers.size());
    DType dt = v.dtype;
    if (o_.bf16_activations && cls == AllocClass::activations && dtype_info(dt).is_float && dtype_info(dt).block_bytes > 2)
      dt = DType::bf16;
    b.bytes = bytes ? *bytes : bytes_of(dt, v.shape);
    b.cls = cls;
    b.space = v.space;
    b.dtype = dt;
    b.shape = v.shape;
    b.type = type_text(dt, v.shape, v.space);
    b.what = std::move(what);
    b.alloc_event = static_cast<std::uint32_t>(plan_.events.size());
    b.free_event = UINT32_MAX;
    plan_.events.push_back({true, b.id, static_cast<std::uint32_t>(plan_.sites.size() - 1)});
    plan_.buffers.push_back(std::move(b));
    return plan_.buffers.back().id;
  }
  void release(std::int64_t id) {
    if (id < 0) return;
    Buffer& b = plan_.buffers.at(static_cast<std::size_t>(id));
    if (b.free_event != UINT32_MAX) return;
    touch(b.id);
    b.free_event = static_cast<std::uint32_t>(plan_.events.size());
    plan_.events.push_back({false, b.id, static_cast<std::uint32_t>(plan_.sites.size() - 1)});
  }
  Diagnostic& fail(std::string code, std::string msg) {
    failed_ = true;
    return d_.error(std::move(code), std::move(msg));
  }

  // --- a device backend's buffers (PlanOptions::device_model) -------------------------------

  // A value on the device, in the backend's layout.
  AVal on_device(AVal v, AllocClass cls, std::string what) {
    v.space = MemSpace::device;
    v.buffer = alloc(v, cls, std::move(what), o_.device_model->value_bytes({v.dtype, v.shape}));
    return v;
  }
  // The temporaries of one kernel, allocated next to its outputs and freed when it returns.
  void scratch(const Node& node, const std::vector<AVal>& ins, const std::string& label) {
    const ops::OpDef* op = ops::op_registry().find(node.opcode);
    if (!op) return;
    std::vector<runtime::ValueShape> in;
    for (const auto& v : ins) in.push_back({v.dtype, v.shape});
    bool ok = true;
    std::vector<std::int64_t> held;
    for (std::uint64_t b : o_.device_model->scratch_bytes(*op, in, node.attrs, ok))
      held.push_back(alloc(AVal{DType::u32, {(b + 3) / 4}, MemSpace::device, -1}, AllocClass::working, label + ": kernel scratch", b));
    for (auto b : held) release(b);
  }
  // A result read back: the staging buffer is held while it is copied.
  void staging(const AVal& v, const std::string& label) {
    AVal s{v.dtype, v.shape, MemSpace::device, -1};
    release(alloc(s, AllocClass::working, label + ": read-back staging", o_.device_model->staging_bytes({v.dtype, v.shape})));
  }

  // --- regions ------------------------------------------------------------------------------

  std::optional<std::vector<AVal>> region(RegionId rid, const std::vector<AVal>& args, const std::vector<AllocClass>& result_classes,
                                          Rows rows, int depth, const std::string& path, const std::vector<bool>& owned = {}) {
    const Graph& g = p_.graph;
    const Region& r = g.region(rid);
    if (depth > 64) {
      fail("L0007", "calls nested more than 64 deep (in `" + r.name + "`)");
      return std::nullopt;
    }
    std::string here = path.empty() ? r.name : path + " / " + r.name;
    std::map<std::string, std::uint64_t> bindings;
    std::map<NodeId, std::vector<AVal>> values;
    std::set<NodeId> params;  // borrowed from the caller; handed-over ones are this region's to free
    for (std::size_t i = 0; i < r.params.size(); ++i)
      if (!(i < owned.size() && owned[i])) params.insert(r.params[i]);
    std::vector<std::int64_t> minibatch;  // copies of the rows a reduced batch feeds in
    std::vector<std::int64_t> uploads;    // resident on a device: the arguments' device copies

    // Batch reduction: a gradient region's data operands are fed `batch` rows at a time.
    std::optional<std::size_t> k = gradient_wrt_count(g, rid);
    if (k) note_gradient_batch(rid, *k, args);
    if (k && o_.batch && plan_.batch_dim.rfind("rows fed to ", 0) == 0 && plan_.batch_extent > *o_.batch)
      rows[plan_.batch_extent] = *o_.batch;
    site(here + ": start");
    for (std::size_t i = 0; i < r.params.size() && i < args.size(); ++i) {
      AVal v = args[i];
      if (!v.shape.empty() && rows.count(v.shape[0]) && (!k || i >= *k)) {
        if (v.shape[0] != rows[v.shape[0]] && !o_.stream_rows) {
          v.shape[0] = rows[v.shape[0]];
          v.buffer = alloc(v, AllocClass::inputs, here + ": mini-batch of parameter " + std::to_string(i));
          minibatch.push_back(v.buffer);
        } else {
          v.shape[0] = rows[v.shape[0]];
        }
      }
      bind(g.node(r.params[i]).outputs.at(0), v.shape, bindings);
      if (resident_ && depth == 0) {  // uploaded: the device's copy lives until the region ends
        AllocClass c = v.buffer >= 0 ? plan_.buffers.at(static_cast<std::size_t>(v.buffer)).cls : AllocClass::inputs;
        v = on_device(v, c, here + ": upload of parameter " + std::to_string(i));
        uploads.push_back(v.buffer);
      }
      values[r.params[i]] = {v};
    }
    std::vector<NodeId> order = nodes_in_region(g, r);
    std::map<NodeId, std::size_t> uses;
    for (NodeId n : order)
      for (const auto& in : g.node(n).inputs) ++uses[in.node];
    for (const auto& v : r.results) ++uses[v.node];
    auto classes = roles_.region_values(rid, result_classes);

    std::set<NodeId> param_nodes(r.params.begin(), r.params.end());
    for (NodeId n : order) {
      if (param_nodes.count(n)) continue;
      const Node& node = g.node(n);
      std::vector<AVal> ins;
      for (const auto& in : node.inputs) ins.push_back(values.at(in.node).at(in.output));
      const auto& cls = classes.at(n);
      // Output sizes: declared types under the bindings, rows scaled where in force.
      std::vector<AVal> outs;
      for (std::size_t i = 0; i < node.outputs.size(); ++i) {
        auto shape = size_of(node.outputs[i], bindings, describe_node(g, n) + " in `" + r.name + "`");
        if (!shape) return std::nullopt;
        if (!shape->empty() && (scalable(cls[i]) || chunking_))
          if (auto it = rows.find((*shape)[0]); it != rows.end()) (*shape)[0] = it->second;
        outs.push_back({node.outputs[i].dtype, *shape, node.outputs[i].space, -1});
      }
      std::string label = here + ": " + describe_node(g, n);
      std::int64_t reuse = -1;  // >= 0: the operand whose buffer the result takes (in place)
      if (node.opcode == opcode::kCall) {
        auto callee = g.find_region(node.attrs.at("callee").as<Hash256>());
        if (!callee) {
          fail("L0007", describe_node(g, n) + " calls a region that is not in the graph");
          return std::nullopt;
        }
        std::vector<AllocClass> inner(cls.begin(), cls.end());
        auto res = region(*callee, ins, inner, rows, depth + 1, here);
        if (!res) return std::nullopt;
        // The callee's own result shapes win where they are known (symbols bound inside).
        for (std::size_t i = 0; i < outs.size() && i < res->size(); ++i) outs[i].shape = (*res)[i].shape;
        site(label + " returns");
      } else {
        // In place (runtime/in_place.h): the result takes a dying operand's buffer.
        if (outs.size() == 1 && !resident_) {
          std::vector<runtime::OperandShape> shapes;
          for (std::size_t i = 0; i < ins.size(); ++i) {
            std::size_t here_uses = 0;
            for (const auto& other : node.inputs) here_uses += other.node == node.inputs[i].node;
            shapes.push_back({ins[i].dtype, ins[i].shape, uses.at(node.inputs[i].node) == here_uses && !params.count(node.inputs[i].node)});
          }
          if (auto at = runtime::in_place_operand(node.opcode, shapes, outs[0].dtype); at && ins[*at].buffer >= 0)
            reuse = static_cast<std::int64_t>(*at);
        }
        Dispatch dsp;
        dsp.region = r.name;
        dsp.node = n;
        dsp.op = node.opcode;
        for (const auto& a : ins)
          if (a.buffer >= 0) dsp.inputs.push_back(static_cast<std::uint32_t>(a.buffer));
        for (const auto& o : outs) dsp.shapes.push_back(type_text(o.dtype, o.shape, o.space));
        site(label + " " + (dsp.shapes.empty() ? std::string() : dsp.shapes[0]), static_cast<std::uint32_t>(plan_.dispatches.size()));
        plan_.dispatches.push_back(std::move(dsp));
      }
      for (std::size_t i = 0; i < outs.size(); ++i) {
        if (reuse >= 0) {  // the operand's buffer now holds the result: its class and name follow
          outs[i].buffer = ins[static_cast<std::size_t>(reuse)].buffer;
          touch(static_cast<std::uint32_t>(outs[i].buffer));
          Buffer& b = plan_.buffers.at(static_cast<std::size_t>(outs[i].buffer));
          b.cls = cls[i];
          b.what += ", then in place: " + label;
        } else if (resident_) {
          outs[i] = on_device(outs[i], cls[i], label + (outs.size() > 1 ? " output " + std::to_string(i) : std::string()));
        } else {
          outs[i].buffer = alloc(outs[i], cls[i], label + (outs.size() > 1 ? " output " + std::to_string(i) : std::string()));
        }
        if (node.opcode != opcode::kCall) plan_.dispatches.back().outputs.push_back(static_cast<std::uint32_t>(outs[i].buffer));
      }
      if (resident_ && node.opcode != opcode::kCall && node.opcode != opcode::kConst) scratch(node, ins, label);
      values[n] = outs;
      for (const auto& in : node.inputs)
        if (--uses[in.node] == 0) {
          if (!params.count(in.node))
            for (const auto& v : values.at(in.node))
              if (!(reuse >= 0 && v.buffer == outs[0].buffer)) release(v.buffer);
          values.erase(in.node);
        }
    }
    std::vector<AVal> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    site(here + ": end");
    if (resident_ && depth == 0) {
      // Read back: the region's other values are gone; each result passes a staging buffer,
      // then the device's buffers go and the host's results are stored.
      std::set<std::int64_t> kept;
      for (const auto& v : results) kept.insert(v.buffer);
      for (const auto& [n, vs] : values)
        if (!params.count(n))
          for (const auto& v : vs)
            if (!kept.count(v.buffer)) release(v.buffer);
      for (const auto& v : results) staging(v, here);
      for (auto b : uploads) release(b);
      for (auto& v : results) v.space = MemSpace::host;
    }
    for (const auto& [n, vs] : values)
      if (!params.count(n))
        for (const auto& v : vs) release(v.buffer);
    for (auto b : minibatch) release(b);
    for (auto& v : results) v.buffer = -1;
    return results;
  }

  // --- BlockIR ------------------------------------------------------------------------------

  void put(Frame& fr, block::SlotId id, AVal v, const std::string& what) {
    const auto& cls = roles_.slots(*fr.f);
    if (fr.slots[id] && !fr.borrowed[id]) release(fr.slots[id]->buffer);
    v.buffer = alloc(v, cls.at(id), what);
    fr.borrowed[id] = false;
    fr.slots[id] = v;
  }

  std::optional<std::vector<AVal>> call(const block::Function& f, const std::vector<AVal>& args, int depth) {
    if (depth > 64) {
      fail("L0007", "calls nested more than 64 deep (in `" + f.name + "`)");
      return std::nullopt;
    }
    Frame fr;
    fr.f = &f;
    fr.depth = depth;
    fr.slots.resize(f.slots.size());
    fr.borrowed.assign(f.slots.size(), false);
    for (std::size_t i = 0; i < f.params.size() && i < args.size(); ++i) {
      fr.slots[f.params[i]] = args[i];
      fr.borrowed[f.params[i]] = true;
      bind(f.slots[f.params[i]].type, args[i].shape, fr.bindings);
    }
    auto known = drops_.find(&f);
    if (known == drops_.end()) known = drops_.emplace(&f, runtime::slot_drops(f)).first;
    fr.drops = &known->second;
    drop(fr, fr.drops->at_entry);
    Flow flow = body(fr, f.body);
    if (flow == Flow::failed) return std::nullopt;
    site(f.name + ": returns");
    for (std::size_t i = 0; i < fr.slots.size(); ++i)
      if (fr.slots[i] && !fr.borrowed[i]) release(fr.slots[i]->buffer);
    return std::move(fr.returned);
  }

  // As the executor: a slot's value is dropped where it dies (runtime/slot_lifetimes.h).
  void drop(Frame& fr, const std::vector<block::SlotId>& ids) {
    for (block::SlotId id : ids) {
      if (!fr.slots[id]) continue;
      if (!fr.borrowed[id]) release(fr.slots[id]->buffer);
      fr.slots[id].reset();
      fr.borrowed[id] = false;
    }
  }
  Flow enter(Frame& fr, const std::vector<block::Stmt>& list) {
    drop(fr, fr.drops->entering_body(list));
    return body(fr, list);
  }

  Flow body(Frame& fr, const std::vector<block::Stmt>& list) {
    for (const auto& s : list) {
      Flow fl = stmt(fr, s);
      if (fl != Flow::next) return fl;
      drop(fr, fr.drops->after_stmt(s));
    }
    return Flow::next;
  }

  std::optional<std::vector<AVal>> gather(Frame& fr, const std::vector<block::SlotId>& ids) {
    std::vector<AVal> out;
    for (auto s : ids) {
      if (s >= fr.slots.size() || !fr.slots[s]) {
        fail("L0005", "in `" + fr.f->name + "`: `" + (s < fr.f->slots.size() ? fr.f->slots[s].name : std::to_string(s)) +
                          "` is used before it has a value");
        return std::nullopt;
      }
      out.push_back(*fr.slots[s]);
    }
    return out;
  }

  std::string slot_label(Frame& fr, const std::vector<block::SlotId>& ids) {
    std::string s;
    for (auto id : ids) s += (s.empty() ? "" : ", ") + fr.f->slots.at(id).name;
    return s;
  }

  Flow stmt(Frame& fr, const block::Stmt& s) {
    using block::StmtKind;
    const Graph& g = p_.graph;
    switch (s.kind) {
      case StmtKind::compute: {
        auto args = gather(fr, s.args);
        if (!args) return Flow::failed;
        auto r = g.find_region(s.region);
        if (!r) {
          fail("L0007", "`" + fr.f->name + "` computes a region that is not in the graph");
          return Flow::failed;
        }
        std::vector<AllocClass> rc;
        const auto& cls = roles_.slots(*fr.f);
        for (auto id : s.results) rc.push_back(cls.at(id));
        // Dying slots are handed over (runtime/slot_lifetimes.h): a region run whole frees
        // them after their last use; a region run in chunks leaves them to the frame.
        std::vector<bool> owned = runtime::handed_over(*fr.drops, s, fr.borrowed);
        if (o_.stream_rows && chunked(*r, *args)) owned.assign(owned.size(), false);
        for (std::size_t i = 0; i < s.args.size(); ++i)
          if (owned[i]) fr.slots[s.args[i]].reset();  // the buffer goes with the value
        // On a device the region's host arguments are not taken over: the dying ones are
        // freed once the results are stored (runtime/interpreter.cpp, `hand.taken`).
        std::vector<std::int64_t> freed_after;
        resident_ = o_.device_model && (!o_.on_device || o_.on_device(g, *r));
        if (resident_)
          for (std::size_t i = 0; i < owned.size(); ++i)
            if (owned[i]) {
              freed_after.push_back((*args)[i].buffer);
              owned[i] = false;
            }
        auto res = o_.stream_rows ? streamed(*r, *args, rc, fr.f->name, owned) : region(*r, *args, rc, {}, 0, fr.f->name, owned);
        resident_ = false;
        if (!res) return Flow::failed;
        site(fr.f->name + ": store " + slot_label(fr, s.results));
        for (std::size_t i = 0; i < s.results.size() && i < res->size(); ++i)
          put(fr, s.results[i], (*res)[i], fr.f->name + ": slot " + fr.f->slots.at(s.results[i]).name);
        for (auto b : freed_after) release(b);
        return Flow::next;
      }
      case StmtKind::call: {
        auto args = gather(fr, s.args);
        if (!args) return Flow::failed;
        const block::Function* callee = p_.find(s.callee);
        if (!callee) {
          fail("L0007", "`" + fr.f->name + "` calls `" + s.callee + "`, which does not exist");
          return Flow::failed;
        }
        auto res = call(*callee, *args, fr.depth + 1);
        if (!res) return Flow::failed;
        site(fr.f->name + ": store " + slot_label(fr, s.results));
        for (std::size_t i = 0; i < s.results.size() && i < res->size(); ++i)
          put(fr, s.results[i], (*res)[i], fr.f->name + ": slot " + fr.f->slots.at(s.results[i]).name);
        return Flow::next;
      }
      case StmtKind::for_range: {
        // Two iterations: the first, and the steady state every later one repeats.
        for (int it = 0; it < 2; ++it) {
          site(fr.f->name + ": loop " + fr.f->slots.at(s.results[0]).name + " iteration " + std::to_string(it + 1));
          put(fr, s.results[0], AVal{DType::i64, {}, MemSpace::host, -1}, fr.f->name + ": loop variable " + fr.f->slots.at(s.results[0]).name);
          Flow fl = enter(fr, s.body);
          if (fl == Flow::broke) break;
          if (fl != Flow::next && fl != Flow::continued) return fl;
        }
        return Flow::next;
      }
      case StmtKind::while_loop:
        for (int it = 0; it < 2; ++it) {
          Flow fl = body(fr, s.cond_body);
          if (fl != Flow::next) return fl;
          fl = enter(fr, s.body);
          if (fl == Flow::broke) return Flow::next;
          if (fl != Flow::next && fl != Flow::continued) return fl;
        }
        return body(fr, s.cond_body);
      case StmtKind::if_else: {
        // Both branches from the same state; keep the one with the higher peak (a branch
        // that returns, breaks or continues only when both do).
        // The plan is not copied per branch (an `else if` chain would copy it once per arm,
        // quadratic in the chain): branch a is taken out as what it added and changed, and
        // put back if it wins.
        Mark before = mark();
        struct Close {
          int& open;
          ~Close() { --open; }
        } close{open_marks_};
        Frame fr_before = fr;
        Flow fa = enter(fr, s.body);
        if (fa == Flow::failed) return fa;
        std::uint64_t peak_a = live_peak(plan_);
        Branch a = take_branch(before);
        Frame fr_a = std::move(fr);
        fr = std::move(fr_before);
        Flow fb = enter(fr, s.else_body);
        if (fb == Flow::failed) return fb;
        bool keep_a = reach(fa) == reach(fb) ? peak_a > live_peak(plan_) : reach(fa) > reach(fb);
        if (keep_a) {
          take_branch(before);
          put_branch(std::move(a));
          fr = std::move(fr_a);
          return fa;
        }
        return fb;
      }
      case StmtKind::assign: {
        auto v = gather(fr, s.args);
        if (!v) return Flow::failed;
        site(fr.f->name + ": assign " + slot_label(fr, s.results));
        for (std::size_t i = 0; i < s.results.size() && i < v->size(); ++i)
          put(fr, s.results[i], (*v)[i], fr.f->name + ": slot " + fr.f->slots.at(s.results[i]).name);
        return Flow::next;
      }
      case StmtKind::print:
        return Flow::next;
      case StmtKind::read: {
        const auto& slot = fr.f->slots.at(s.results.at(0));
        auto shape = size_of(slot.type, fr.bindings, "the file read into `" + slot.name + "` (" + s.text + ")");
        if (!shape) return Flow::failed;
        site(fr.f->name + ": read " + s.text);
        put(fr, s.results[0], AVal{slot.type.dtype, *shape, slot.type.space, -1}, fr.f->name + ": slot " + slot.name + " (read " + s.text + ")");
        return Flow::next;
      }
      case StmtKind::ret: {
        auto v = gather(fr, s.args);
        if (!v) return Flow::failed;
        fr.returned = *v;
        return Flow::returned;
      }
      case StmtKind::break_loop: return Flow::broke;
      case StmtKind::continue_loop: return Flow::continued;
    }
    return Flow::failed;
  }

  // A compute under --stream, as the executor runs it (runtime/interpreter.cpp run_split):
  // whole unless row-local; else per chunk the split arguments' rows are copied, the region
  // runs on them, its results are held and copied into the assembled results (allocated
  // after the first chunk). Two chunks are planned: the first and the steady state.
  bool chunked(RegionId r, const std::vector<AVal>& args) const {
    std::vector<std::vector<std::uint64_t>> shapes;
    for (const auto& a : args) shapes.push_back(a.shape);
    return row_split(p_.graph, r, shapes, *o_.stream_rows).ok;
  }
  std::optional<std::vector<AVal>> streamed(RegionId r, const std::vector<AVal>& args, const std::vector<AllocClass>& rc,
                                            const std::string& path, const std::vector<bool>& owned) {
    const std::uint64_t chunk = *o_.stream_rows;
    std::vector<std::vector<std::uint64_t>> shapes;
    for (const auto& a : args) shapes.push_back(a.shape);
    RowSplit s = row_split(p_.graph, r, shapes, chunk);
    const std::string& name = p_.graph.region(r).name;
    if (s.rows) {
      bool seen = false;
      for (const auto& st : plan_.streams) seen = seen || (st.region == name && st.rows == s.rows);
      if (!seen) plan_.streams.push_back({name, s.rows, s.ok ? chunk : 0, s.why});
    }
    if (!s.ok) return region(r, args, rc, {}, 0, path, owned);
    std::vector<std::int64_t> whole;
    std::vector<AVal> results;
    for (std::uint64_t lo = 0, c = 0; lo < s.rows && c < 2; lo += chunk, ++c) {
      std::uint64_t size = std::min(chunk, s.rows - lo);
      site(path + " / " + name + ": chunk " + std::to_string(c + 1) + " of " + std::to_string((s.rows + chunk - 1) / chunk));
      std::vector<AVal> part = args;
      std::vector<std::int64_t> slices;
      for (std::size_t i = 0; i < part.size() && i < s.split.size(); ++i)
        if (s.split[i]) {
          part[i].shape[0] = size;
          part[i].buffer = alloc(part[i], AllocClass::inputs, path + ": rows of argument " + std::to_string(i) + " of " + name);
          slices.push_back(part[i].buffer);
        }
      chunking_ = true;
      auto res = region(r, part, rc, Rows{{s.rows, size}}, 0, path);
      chunking_ = false;
      if (!res) return std::nullopt;
      for (auto b : slices) release(b);
      std::vector<std::int64_t> held;
      for (std::size_t k = 0; k < res->size(); ++k)
        held.push_back(alloc((*res)[k], k < rc.size() ? rc[k] : AllocClass::working, path + ": chunk result " + std::to_string(k) + " of " + name));
      if (c == 0)
        for (std::size_t k = 0; k < res->size(); ++k) {
          AVal full = (*res)[k];
          full.shape.at(0) = s.rows;
          full.buffer = alloc(full, k < rc.size() ? rc[k] : AllocClass::working, path + ": result " + std::to_string(k) + " of " + name);
          whole.push_back(full.buffer);
          results.push_back(full);
        }
      for (auto b : held) release(b);
    }
    for (auto b : whole) release(b);  // the slots take them over
    for (auto& v : results) v.buffer = -1;
    return results;
  }

  // --- branches: what one arm of an `if` added to the plan, and the buffers it changed ----

  struct Mark {
    std::size_t buffers, events, sites, dispatches, tilings, streams, undo;
    std::string batch_dim;
    std::uint64_t batch_extent;
  };
  struct Branch {
    std::vector<Buffer> buffers;
    std::vector<Event> events;
    std::vector<Site> sites;
    std::vector<Dispatch> dispatches;
    std::vector<Tiling> tilings;
    std::vector<Streamed> streams;
    std::vector<std::pair<std::uint32_t, Buffer>> changed;  // older buffers as the branch left them
    std::vector<std::pair<std::uint32_t, Buffer>> undo;     // ... and as they were before it
    std::string batch_dim;
    std::uint64_t batch_extent;
  };
  // Older buffers as they were before a change, recorded while a branch is open.
  std::vector<std::pair<std::uint32_t, Buffer>> undo_;
  int open_marks_ = 0;

  void touch(std::uint32_t id) {
    if (open_marks_ > 0) undo_.emplace_back(id, plan_.buffers.at(id));
  }
  Mark mark() {
    ++open_marks_;
    return {plan_.buffers.size(), plan_.events.size(), plan_.sites.size(), plan_.dispatches.size(), plan_.tilings.size(),
            plan_.streams.size(), undo_.size(), plan_.batch_dim, plan_.batch_extent};
  }
  template <class T>
  static std::vector<T> cut(std::vector<T>& v, std::size_t from) {
    std::vector<T> tail(std::make_move_iterator(v.begin() + static_cast<std::ptrdiff_t>(from)), std::make_move_iterator(v.end()));
    v.resize(from);
    return tail;
  }
  // Rolls the plan back to `m`, returning what was rolled back. The mark stays open.
  Branch take_branch(const Mark& m) {
    Branch b;
    for (std::size_t i = m.undo; i < undo_.size(); ++i)
      if (undo_[i].first < m.buffers) b.changed.emplace_back(undo_[i].first, plan_.buffers[undo_[i].first]);
    for (std::size_t i = undo_.size(); i-- > m.undo;)
      if (undo_[i].first < m.buffers) plan_.buffers[undo_[i].first] = undo_[i].second;
    b.undo = cut(undo_, m.undo);
    b.buffers = cut(plan_.buffers, m.buffers);
    b.events = cut(plan_.events, m.events);
    b.sites = cut(plan_.sites, m.sites);
    b.dispatches = cut(plan_.dispatches, m.dispatches);
    b.tilings = cut(plan_.tilings, m.tilings);
    b.streams = cut(plan_.streams, m.streams);
    b.batch_dim = std::exchange(plan_.batch_dim, m.batch_dim);
    b.batch_extent = std::exchange(plan_.batch_extent, m.batch_extent);
    return b;
  }
  // Re-applies a branch taken at the same mark (after the plan was rolled back to it).
  void put_branch(Branch b) {
    auto append = [](auto& v, auto& tail) { v.insert(v.end(), std::make_move_iterator(tail.begin()), std::make_move_iterator(tail.end())); };
    for (auto& [id, buf] : b.changed) plan_.buffers[id] = std::move(buf);
    append(undo_, b.undo);
    append(plan_.buffers, b.buffers);
    append(plan_.events, b.events);
    append(plan_.sites, b.sites);
    append(plan_.dispatches, b.dispatches);
    append(plan_.tilings, b.tilings);
    append(plan_.streams, b.streams);
    plan_.batch_dim = std::move(b.batch_dim);
    plan_.batch_extent = b.batch_extent;
  }

  static std::uint64_t live_peak(const MemoryPlan& m) {
    std::uint64_t live = 0, peak = 0;
    for (const auto& e : m.events) {
      if (e.alloc) live += m.buffers[e.buffer].bytes;
      else live -= m.buffers[e.buffer].bytes;
      peak = std::max(peak, live);
    }
    return peak;
  }

 private:
  std::map<const block::Function*, runtime::SlotDrops> drops_;
  bool chunking_ = false;  // planning one chunk of a row-local region: every row value scales
  bool resident_ = false;  // planning a region a device backend runs with its values resident (device_model)
  const block::Program& p_;
  const PlanOptions& o_;
  DiagnosticSink& d_;
  Roles roles_;
  MemoryPlan plan_;
  bool failed_ = false;
};

}  // namespace

std::optional<MemoryPlan> plan_program(const block::Program& p, const PlanOptions& opts, DiagnosticSink& diags) {
  Planner planner(p, opts, diags);
  auto plan = planner.run();
  if (!plan || diags.has_errors()) return std::nullopt;
  if (opts.binding_limit) annotate_tiling(*plan, p.graph, opts.binding_limit);
  finish(*plan);
  return plan;
}

}  // namespace rung::plan
