// The memory plan of a BlockIR program: every tensor value the executor will hold, as a
// buffer with a size, an allocation class, a memory space and a lifetime, placed at an
// offset in an arena per memory space, and the dispatch list that produces them.
//
// The plan models the executor exactly (src/runtime/interpreter.cpp with the reference
// region walk): a region evaluates its nodes in `nodes_in_region` order, allocates a node's
// outputs before it frees the inputs whose last use it was, and frees what remains at its
// end; a BlockIR slot holds its value until its last use (runtime/slot_lifetimes.h, shared
// with the executor), until it is overwritten, or until its frame returns; region
// and callee parameters borrow the caller's buffers. Loop bodies are planned twice (the
// first iteration and the steady state, where each slot write frees the previous value);
// both branches of an `if` are planned and the one with the higher peak kept.
//
// Diagnostics L0001..L0009 (docs/plan.md).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "runtime/memory_model.h"

namespace rung::plan {

// Every byte of the plan is in exactly one class.
enum class AllocClass : std::uint8_t {
  parameters = 0,       // model weights: state passed as the differentiated argument
  master_weights = 1,   // f32 copies of weights trained in lower precision (mixed precision)
  activations = 2,      // forward values a gradient region keeps for its backward part
  gradients = 3,        // d loss / d parameter, from produced to last use
  optimizer_state = 4,  // state operands of optimizer ops (momentum, Adam moments)
  inputs = 5,           // data: entry arguments, files read, and values derived only from them
  working = 6,          // everything else: intermediates and kernel temporaries
};
inline constexpr std::size_t kClassCount = 7;
std::string_view class_name(AllocClass c);
using ClassBytes = std::array<std::uint64_t, kClassCount>;

enum class Device : std::uint8_t { cpu, cuda, webgpu };
std::string_view device_name(Device d);
std::optional<Device> device_from_name(std::string_view name);

struct Buffer {
  std::uint32_t id = 0;
  std::uint64_t bytes = 0;
  AllocClass cls = AllocClass::working;
  MemSpace space = MemSpace::host;
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  std::string type;   // concrete type, "f32[1497, 64]"
  std::string what;   // "train: slot x_train", "loss.grad: node #40 matmul"
  std::uint32_t alloc_event = 0;
  std::uint32_t free_event = 0;  // == events.size() when held to the end
  std::uint64_t offset = 0;      // in its memory space's arena
  std::uint32_t tiles = 1;       // > 1: split into this many bindings (binding limit)
};

struct Dispatch {
  std::string region;  // region name
  NodeId node = 0;
  std::string op;      // opcode
  std::vector<std::uint32_t> inputs;   // buffer ids (borrowed parameters included)
  std::vector<std::uint32_t> outputs;  // buffer ids
  std::vector<std::string> shapes;     // output types
  std::uint32_t tiles = 1;             // > 1: split along dim 0 to honour the binding limit
};

struct Event {
  bool alloc = true;
  std::uint32_t buffer = 0;
  std::uint32_t at = 0;  // index into MemoryPlan::sites: which op/statement it belongs to
};

// Where an event happens: a dispatch, or a BlockIR statement.
struct Site {
  std::string text;                 // "train.11 / loss.grad: node #40 matmul f32[1497, 32]"
  std::optional<std::uint32_t> dispatch;
};

struct Tiling {
  std::uint32_t dispatch = 0;
  std::uint64_t largest = 0;  // the largest binding before splitting
  std::uint32_t tiles = 0;
  std::string why;            // "output f32[...] is 300 MiB > binding limit 128 MiB"
};

// --stream: a computation on more rows than a chunk, run in chunks (row-local regions) or
// whole (with the reason). row_split.h says which.
struct Streamed {
  std::string region;
  std::uint64_t rows = 0;
  std::uint64_t chunk = 0;  // 0: runs whole
  std::string why;          // chunk == 0: why it cannot be split
};

struct PlanOptions {
  Device device = Device::cpu;
  std::string entry;                               // empty: the only exported function
  std::map<std::string, std::uint64_t> dims;       // symbolic dims bound up front (--dim N=...)
  // Re-planning knobs (what suggestions change):
  std::optional<std::uint64_t> batch;              // the batch dim bound to this many rows
  std::optional<std::uint64_t> stream_rows;        // computations on more rows run in chunks of this many
  bool bf16_activations = false;                   // activations stored as bf16
  std::uint64_t binding_limit = 0;                 // 0: none
  // A device backend's own buffers (runtime/memory_model.h) for the regions `on_device` says
  // run there (the execution policy's placement; empty: every region): each such region's
  // arguments uploaded, its values on the device in the backend's layout, each kernel's
  // scratch, every result read back through a staging buffer. Null: the host walk only.
  const runtime::DeviceMemoryModel* device_model = nullptr;
  std::function<bool(const Graph&, RegionId)> on_device;
};

struct MemoryPlan {
  Device device = Device::cpu;
  std::string entry;
  std::vector<Buffer> buffers;
  std::vector<Event> events;
  std::vector<Site> sites;
  std::vector<Dispatch> dispatches;
  std::vector<Tiling> tilings;
  std::vector<Streamed> streams;

  // Derived by finish(): live-bytes peak (what the executor holds at its worst), where it
  // happens, the classes at that moment, each class's own maximum, arena sizes after
  // offset assignment (reuse), and the no-reuse total (every buffer its own memory).
  std::uint64_t peak = 0;
  std::uint32_t peak_site = 0;
  ClassBytes at_peak{};
  ClassBytes class_max{};
  std::map<MemSpace, std::uint64_t> arenas;
  std::uint64_t arena_total = 0;
  std::uint64_t no_reuse = 0;
  // Dispatches that write their result into a dying operand's buffer (in place: the output
  // id is one of the input ids), and the bytes they did not allocate.
  std::uint32_t in_place_dispatches = 0;
  std::uint64_t in_place_bytes = 0;
  // The batch dim found in the program (a symbol or the shared leading extent of the data
  // fed to gradient regions), with its extent; empty when there is none.
  std::string batch_dim;
  std::uint64_t batch_extent = 0;
  // With a device model: what of the backend's memory the plan does not count.
  std::string left_out;
};

// Plans `opts.entry` of `p`. Returns nullopt with L-diagnostics when the program cannot be
// planned (a dim without a size, an entry that does not exist, ...).
std::optional<MemoryPlan> plan_program(const block::Program& p, const PlanOptions& opts, DiagnosticSink& diags);

// Lifetimes -> peak, per-class figures, arena offsets (greedy by size, first fit).
void finish(MemoryPlan& plan);

}  // namespace rung::plan
