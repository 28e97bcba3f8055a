// The handles of the C ABI (include/rung.h): not pointers but slot numbers with a generation,
// so a released or forged handle is found out by a table look-up instead of a read of freed
// memory (which no magic field could make safe: ASan and a reused allocation both see
// through it). A handle's value is (generation << kIndexBits) | (slot + 1): never 0, and a
// slot reused after a release has a new generation, so the old value no longer matches.
// Slots are reused oldest first, so a stale handle matches a new object only after 2^32
// (64-bit) or 2^12 (wasm32) releases of the same slot.
//
// Objects are held by shared_ptr: a call in progress keeps its object alive even if another
// thread releases the handle meanwhile.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rung::capi {

enum class Kind : std::uint8_t {
  status = 1, module, program, session, tensor, run_result, compile_options, session_options, run_options,
};
const char* kind_name(Kind k);  // "RungTensor"

class HandleTable {
 public:
  static constexpr int kIndexBits = sizeof(std::uintptr_t) == 8 ? 32 : 20;
  static constexpr std::uintptr_t kIndexMask = (std::uintptr_t{1} << kIndexBits) - 1;
  static constexpr std::uint32_t kGenerationMask =
      sizeof(std::uintptr_t) == 8 ? 0xFFFFFFFFu : static_cast<std::uint32_t>((std::uintptr_t{1} << (32 - kIndexBits)) - 1);

  // A new handle for `object` (throws std::bad_alloc like any allocation).
  std::uintptr_t add(Kind kind, std::shared_ptr<void> object);

  // Why a look-up failed ("" when it did not).
  struct Found {
    std::shared_ptr<void> object;
    std::string why;  // "a released RungTensor handle", "not a RungTensor handle", ...
  };
  Found get(std::uintptr_t handle, Kind kind) const;
  // Drops the table's reference; false when the handle was not live (released twice, forged).
  bool remove(std::uintptr_t handle, Kind kind);

  std::size_t live() const;  // for tests: handles not yet released

 private:
  struct Slot {
    std::uint32_t generation = 1;
    Kind kind = Kind::status;
    std::shared_ptr<void> object;  // null: free
  };
  mutable std::mutex mu_;
  std::deque<Slot> slots_;  // stable while it grows
  std::deque<std::uint32_t> free_;
  std::size_t live_ = 0;
};

HandleTable& handles();

template <typename T>
struct Handle {
  std::shared_ptr<T> object;
  std::string why;
  explicit operator bool() const { return object != nullptr; }
  T* operator->() const { return object.get(); }
  T& operator*() const { return *object; }
};

}  // namespace rung::capi
