// What the C ABI's handles hold, and the helpers every entry uses: the guard that keeps
// exceptions inside, status making, handle look-up. Built on the public C++ API only
// (include/rung/): the C ABI is one more client of it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "capi/handles.h"
#include "rung.h"
#include "rung/rung.hpp"

namespace rung::capi {

struct StatusObj {
  RungStatusCode code = RUNG_INTERNAL;
  std::string message;  // the summary
  Diagnostics diagnostics;
  std::string json;  // made once, on creation
  std::vector<std::string> files;  // per diagnostic: its file or ""
};

struct ModuleObj {
  Module module;
  Diagnostics warnings;  // the load's
};

struct CompileOptionsObj {
  CompileOptions options;
};

// An entry's parameters and results as the C ABI hands them out (strings owned here).
struct SlotInfo {
  std::string name, type;
  DType dtype;
};
struct EntryObj {
  std::string name;
  std::vector<SlotInfo> params, results;
};

struct ProgramObj {
  Program program;
  std::string fingerprint, tier, tolerance;
  std::string warnings_json;  // the module's and the compile's
  std::vector<EntryObj> entries;
};

struct SessionOptionsObj {
  SessionOptions options;
};

struct SessionObj {
  Session session;
  std::string backend;
};

struct RunOptionsObj {
  RunOptions options;
  std::atomic<bool> cancel{false};  // options.cancel points here
};

struct TensorObj {
  Tensor tensor;
  mutable std::once_flag hash_once;
  mutable std::string hash;
};

struct RunResultObj {
  RunResult result;
  mutable std::once_flag warnings_once;  // the JSON is made on first ask: a run need not pay for it
  mutable std::string warnings_json;
};

// --- statuses ---

// A status for diagnostics the C++ API reported; its code from the first error's code.
RungStatus* status_of(const Diagnostics& d);
RungStatus* status_of(const Diagnostics& d, RungStatusCode code);
// A boundary error of the C layer itself.
RungStatus* fail(RungStatusCode code, std::string diag_code, std::string text, std::vector<std::string> notes = {});
RungStatus* out_of_memory();  // never allocates
RungStatus* internal(const char* what) noexcept;
RungStatusCode code_for(const std::string& diag_code);

// Runs `f` (returning RungStatus*), keeping every exception inside: bad_alloc is
// OUT_OF_MEMORY, anything else INTERNAL with its text.
template <typename F>
RungStatus* guard(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  } catch (const std::exception& e) {
    return internal(e.what());
  } catch (...) {
    return internal("an exception that is not a std::exception");
  }
}

// --- handles ---

template <typename T>
Kind kind_of();
template <> inline Kind kind_of<StatusObj>() { return Kind::status; }
template <> inline Kind kind_of<ModuleObj>() { return Kind::module; }
template <> inline Kind kind_of<ProgramObj>() { return Kind::program; }
template <> inline Kind kind_of<SessionObj>() { return Kind::session; }
template <> inline Kind kind_of<TensorObj>() { return Kind::tensor; }
template <> inline Kind kind_of<RunResultObj>() { return Kind::run_result; }
template <> inline Kind kind_of<CompileOptionsObj>() { return Kind::compile_options; }
template <> inline Kind kind_of<SessionOptionsObj>() { return Kind::session_options; }
template <> inline Kind kind_of<RunOptionsObj>() { return Kind::run_options; }

template <typename T, typename H>
Handle<T> lookup(const H* handle) {
  Handle<T> h;
  if (!handle) {
    h.why = std::string("a NULL ") + kind_name(kind_of<T>());
    return h;
  }
  auto found = handles().get(reinterpret_cast<std::uintptr_t>(handle), kind_of<T>());
  h.object = std::static_pointer_cast<T>(std::move(found.object));
  h.why = std::move(found.why);
  return h;
}

template <typename H, typename T>
H* issue(std::shared_ptr<T> object) {
  return reinterpret_cast<H*>(handles().add(kind_of<T>(), std::move(object)));
}

template <typename T, typename H>
void release(H* handle) noexcept {
  if (!handle) return;
  try {
    handles().remove(reinterpret_cast<std::uintptr_t>(handle), kind_of<T>());
  } catch (...) {
    // a destructor that throws: nothing crosses the boundary
  }
}

// M0007 for a handle that failed its look-up.
RungStatus* bad_handle(const std::string& why);
// M0007 for a NULL pointer argument (`what` names it: "out", "name").
RungStatus* null_argument(const char* what);

// The public DType for a C code, or nullopt (then M0003).
std::optional<DType> dtype_of(RungDType code);

}  // namespace rung::capi
