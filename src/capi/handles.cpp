#include "capi/handles.h"

#include <utility>

namespace rung::capi {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::status: return "RungStatus";
    case Kind::module: return "RungModule";
    case Kind::program: return "RungProgram";
    case Kind::session: return "RungSession";
    case Kind::tensor: return "RungTensor";
    case Kind::run_result: return "RungRunResult";
    case Kind::compile_options: return "RungCompileOptions";
    case Kind::session_options: return "RungSessionOptions";
    case Kind::run_options: return "RungRunOptions";
  }
  return "handle";
}

std::uintptr_t HandleTable::add(Kind kind, std::shared_ptr<void> object) {
  std::lock_guard lock(mu_);
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.front();
    free_.pop_front();
  } else {
    if (slots_.size() >= kIndexMask) throw std::bad_alloc();  // every slot number in use
    slots_.emplace_back();
    index = static_cast<std::uint32_t>(slots_.size() - 1);
  }
  Slot& s = slots_[index];
  s.kind = kind;
  s.object = std::move(object);
  ++live_;
  return (static_cast<std::uintptr_t>(s.generation) << kIndexBits) | (static_cast<std::uintptr_t>(index) + 1);
}

HandleTable::Found HandleTable::get(std::uintptr_t handle, Kind kind) const {
  std::uintptr_t index1 = handle & kIndexMask;
  auto generation = static_cast<std::uint32_t>(handle >> kIndexBits);
  std::lock_guard lock(mu_);
  if (index1 == 0 || index1 > slots_.size() || generation == 0 || generation > kGenerationMask)
    return {nullptr, std::string("not a ") + kind_name(kind) + " handle (never issued by this library)"};
  const Slot& s = slots_[index1 - 1];
  if (s.generation != generation || !s.object) return {nullptr, std::string("a released ") + kind_name(kind) + " handle"};
  if (s.kind != kind) return {nullptr, std::string("a ") + kind_name(s.kind) + " handle where a " + kind_name(kind) + " is expected"};
  return {s.object, {}};
}

bool HandleTable::remove(std::uintptr_t handle, Kind kind) {
  std::uintptr_t index1 = handle & kIndexMask;
  auto generation = static_cast<std::uint32_t>(handle >> kIndexBits);
  std::shared_ptr<void> dropped;  // destroyed after the lock is let go: a destructor may call back in
  {
    std::lock_guard lock(mu_);
    if (index1 == 0 || index1 > slots_.size()) return false;
    Slot& s = slots_[index1 - 1];
    if (s.generation != generation || !s.object || s.kind != kind) return false;
    dropped = std::move(s.object);
    s.object.reset();
    s.generation = s.generation == kGenerationMask ? 1 : s.generation + 1;
    --live_;
    free_.push_back(static_cast<std::uint32_t>(index1 - 1));  // can throw: the slot is then only not reused
  }
  return true;
}

std::size_t HandleTable::live() const {
  std::lock_guard lock(mu_);
  return live_;
}

HandleTable& handles() {
  static HandleTable* table = new HandleTable;  // never destroyed: handles may outlive static destruction
  return *table;
}

}  // namespace rung::capi
