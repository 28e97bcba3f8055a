// The few out-of-line Highway symbols the cpu backend uses, for the wasm32 build only.
//
// Why: Debian ships Highway 1.0.3 as headers plus an x86-64/aarch64 libhwy; there is no wasm
// libhwy. On wasm Highway has no runtime dispatch (HWY_HAVE_RUNTIME_DISPATCH 0): HWY_TARGETS is
// the one static target (HWY_WASM with -msimd128), HWY_DYNAMIC_DISPATCH is static dispatch, and
// what remains of libhwy is this: the supported-target mask (the static target, or the one a
// test forced), aligned allocation, and Abort. Only scripts/wasm32-emscripten.cmake's build
// compiles this file (src/backends/cpu/CMakeLists.txt adds it under EMSCRIPTEN); natively the
// real libhwy is linked and nothing here exists.
#if defined(__EMSCRIPTEN__)

#include <hwy/aligned_allocator.h>
#include <hwy/base.h>
#include <hwy/targets.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace hwy {

namespace {
std::int64_t g_forced_targets = 0;  // SetSupportedTargetsForTest's mask (0: none)
std::int64_t g_disabled_targets = 0;

// Each allocation keeps, just before the aligned payload, where malloc's block starts and how
// many payload bytes it holds (DeleteAlignedArray runs the destructors over them).
struct Header {
  void* allocated;
  std::size_t payload_size;
};
constexpr std::size_t kAlign = HWY_ALIGNMENT > 64 ? HWY_ALIGNMENT : 64;
static_assert(sizeof(Header) <= kAlign);
}  // namespace

std::int64_t SupportedTargets() {
  std::int64_t t = g_forced_targets != 0 ? g_forced_targets : static_cast<std::int64_t>(HWY_STATIC_TARGET);
  t &= ~g_disabled_targets;
  return t != 0 ? t : static_cast<std::int64_t>(HWY_STATIC_TARGET);
}

void DisableTargets(std::int64_t disabled_targets) { g_disabled_targets = disabled_targets & ~static_cast<std::int64_t>(HWY_STATIC_TARGET); }

void SetSupportedTargetsForTest(std::int64_t targets) { g_forced_targets = targets; }

// Only multi-target dispatch tables read it (never built here); defined so nothing is left
// undefined should a header reach for it.
ChosenTarget& GetChosenTarget() {
  static ChosenTarget chosen;
  return chosen;
}

void* AllocateAlignedBytes(std::size_t payload_size, AllocPtr alloc_ptr, void* opaque_ptr) {
  if (payload_size > SIZE_MAX - 2 * kAlign) return nullptr;
  std::size_t total = payload_size + kAlign;
  void* allocated = alloc_ptr != nullptr ? alloc_ptr(opaque_ptr, total) : std::malloc(total);
  if (allocated == nullptr) return nullptr;
  std::uintptr_t payload = (reinterpret_cast<std::uintptr_t>(allocated) + sizeof(Header) + kAlign - 1) & ~(kAlign - 1);
  if (payload + payload_size > reinterpret_cast<std::uintptr_t>(allocated) + total) {
    // malloc's block was not aligned enough to fit both: cannot happen with kAlign spare bytes
    // and a header no larger than kAlign unless malloc returns an odd address.
    if (alloc_ptr == nullptr) std::free(allocated);
    return nullptr;
  }
  Header* h = reinterpret_cast<Header*>(payload) - 1;
  h->allocated = allocated;
  h->payload_size = payload_size;
  return reinterpret_cast<void*>(payload);
}

void FreeAlignedBytes(const void* aligned_pointer, FreePtr free_ptr, void* opaque_ptr) {
  if (aligned_pointer == nullptr) return;
  const Header* h = static_cast<const Header*>(aligned_pointer) - 1;
  if (free_ptr != nullptr) {
    free_ptr(opaque_ptr, h->allocated);
  } else {
    std::free(h->allocated);
  }
}

void AlignedDeleter::DeleteAlignedArray(void* aligned_pointer, FreePtr free_ptr, void* opaque_ptr, ArrayDeleter deleter) {
  if (aligned_pointer == nullptr) return;
  const Header* h = static_cast<const Header*>(aligned_pointer) - 1;
  if (deleter != nullptr) deleter(aligned_pointer, h->payload_size);
  FreeAlignedBytes(aligned_pointer, free_ptr, opaque_ptr);
}

void Abort(const char* file, int line, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fprintf(stderr, "Abort at %s:%d: ", file, line);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace hwy

#endif  // __EMSCRIPTEN__
