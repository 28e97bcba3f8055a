// libFuzzer target for the C ABI (`make fuzz TARGET=capi`): the input is a program of calls
// through include/rung.h — tensor descriptions (dtype, rank, extents, strides, sizes), DLPack
// structs (version, device, dtype, strides), loads, compiles, sessions, runs, releases, stale
// and forged handles, NULL out-parameters — in any order. Whatever the sequence, each call
// answers with a well-formed status or a success, never a crash; and the ownership promises
// hold: each borrowed buffer's release and each DLPack producer's deleter runs exactly once,
// released handles are reported (M0007), a successful tensor's size is what its description
// says. A violation aborts, so libFuzzer and the replay driver (fuzz.capi) report the input.
//
// Memory the harness hands to rung is always valid for the description given: when the
// elements a description reaches do not fit the harness's buffer, it passes NULL data, which
// rung must refuse (M0007) unless there are no elements.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rung.h"

namespace {

const RungApi* api;
// RUNG_CAPI_FUZZ_TRACE=1: each step and each failed call's status on stderr (to check a seed).
const bool trace = std::getenv("RUNG_CAPI_FUZZ_TRACE") != nullptr;

struct Input {
  const std::uint8_t* p;
  std::size_t n, i = 0;
  bool done() const { return i >= n; }
  std::uint8_t byte() { return i < n ? p[i++] : 0; }
  std::int8_t sbyte() { return static_cast<std::int8_t>(byte()); }
  std::uint32_t pick(std::uint32_t k) { return k ? byte() % k : 0; }
};

[[noreturn]] void broken(const char* why) {
  std::fprintf(stderr, "capi_fuzz: %s\n", why);
  std::abort();
}

// A status must be well-formed; returns its code (RUNG_OK for NULL) after releasing it.
RungStatusCode check(RungStatus* s) {
  RungStatusCode c = api->StatusCode(s);
  if (!s) return RUNG_OK;
  if (c < RUNG_INVALID_ARGUMENT || c > RUNG_INTERNAL) broken("a status code out of range");
  if (c == RUNG_INTERNAL) broken(api->StatusMessage(s));  // an escaped exception is a bug
  const char* m = api->StatusMessage(s);
  if (!m || !*m) broken("a status without a message");
  if (trace) std::fprintf(stderr, "  status %d: %s\n", c, m);
  const char* j = api->StatusDiagnosticsJson(s);
  if (!j || j[0] != '[') broken("diagnostics JSON that is not an array");
  for (uint64_t k = 0, n = api->StatusDiagnosticCount(s); k < n; ++k) {
    const char* code = nullptr;
    if (api->StatusDiagnostic(s, k, &code, nullptr, nullptr, nullptr, nullptr, nullptr) || !code || !*code)
      broken("a diagnostic without a code");
  }
  api->ReleaseStatus(s);
  if (c != RUNG_OUT_OF_MEMORY && api->StatusCode(s) != RUNG_INVALID_ARGUMENT) broken("a released status still reads");
  return c;
}

// Bytes per element (block formats: per block of 32) for the harness's size bound.
std::uint64_t elem_bytes(RungDType t) {
  switch (t) {
    case RUNG_F64: case RUNG_I64: case RUNG_U64: return 8;
    case RUNG_F32: case RUNG_I32: case RUNG_U32: return 4;
    case RUNG_F16: case RUNG_BF16: case RUNG_I16: case RUNG_U16: return 2;
    case RUNG_Q8_0: return 34;
    case RUNG_Q4_0: return 18;
    default: return 1;
  }
}

__extension__ typedef __int128 i128;  // wide enough for any product of the extents below

alignas(64) std::uint8_t g_buffer[4096];

// A tensor description read from the input.
struct Desc {
  RungDType dtype;
  int32_t ndim;
  std::vector<int64_t> shape, strides;
  bool has_strides;
  const void* data;
  bool fits;  // every element reached lies in g_buffer (data is then g_buffer + offset)
};

Desc describe(Input& in) {
  Desc d;
  d.dtype = static_cast<RungDType>(in.pick(17));  // 0 and 16 are no dtype
  d.ndim = static_cast<int32_t>(in.pick(6)) - 1;  // -1 .. 4
  std::uint8_t flags = in.byte();
  d.has_strides = flags & 1;
  int n = d.ndim > 0 ? d.ndim : 0;
  for (int k = 0; k < n; ++k) {
    std::uint8_t e = in.byte();
    int64_t x = e % 9;
    if (e >= 250) x = e == 255 ? INT64_MAX / 3 : -static_cast<int64_t>(e % 3) - 1;  // huge or negative
    if (d.dtype == RUNG_Q8_0 || d.dtype == RUNG_Q4_0) x = (e & 0x80) ? 32 : x;
    d.shape.push_back(x);
    d.strides.push_back(static_cast<int64_t>(in.sbyte() % 9));
  }
  // Which elements the description reaches: the lowest and highest element offsets.
  bool overflow = false, empty = false;
  i128 lo = 0, hi = 0, row = 1;
  for (int k = n; k-- > 0;) {
    int64_t e = d.shape[k];
    if (e <= 0) {
      empty |= e == 0;  // a negative extent is refused before any byte is read
      continue;
    }
    i128 stride = d.has_strides ? d.strides[k] : row;
    (stride < 0 ? lo : hi) += stride * (e - 1);
    row *= e;
    if (row > (static_cast<i128>(1) << 62)) overflow = true;
  }
  i128 eb = elem_bytes(d.dtype);
  std::uint64_t offset = in.pick(8) * 8;
  d.fits = !overflow && -lo * eb <= static_cast<i128>(offset) &&
           static_cast<i128>(offset) + (hi + 1) * eb <= static_cast<i128>(sizeof g_buffer);
  d.data = (d.fits || empty) && !(flags & 2) ? g_buffer + offset : nullptr;
  return d;
}

struct Borrowed {
  int released = 0;
};
void on_release(void* c) { ++static_cast<Borrowed*>(c)->released; }

struct Producer {
  std::vector<int64_t> shape, strides;
  RungDLManagedTensorVersioned v{};
  RungDLManagedTensor legacy{};
  int deleted = 0;
};
void producer_delete(RungDLManagedTensorVersioned* m) { ++static_cast<Producer*>(m->manager_ctx)->deleted; }
void producer_delete_legacy(RungDLManagedTensor* m) { ++static_cast<Producer*>(m->manager_ctx)->deleted; }

const char kAdd[] =
    "module a;\n\ntier debug;\ntolerance exact;\n\n"
    "export fn add(a: f32[N], b: f32[N]) -> f32[N] {\n    a + b\n}\n";
const char kCenter[] = R"({"format": "rung-workflow", "version": 1, "name": "center", "tier": "debug", "tolerance": "exact",
  "inputs": [{"name": "x", "type": "f32[N, 8]"}, {"name": "w", "type": "f32[8, 4]"}],
  "nodes": [{"id": "mean", "op": "mean", "attrs": {"axes": [0], "keepdims": true}}, {"id": "centered", "op": "sub"},
            {"id": "project", "op": "matmul"}],
  "edges": [{"from": "x", "to": "mean.x"}, {"from": "x", "to": "centered.a"}, {"from": "mean", "to": "centered.b"},
            {"from": "centered", "to": "project.a"}, {"from": "w", "to": "project.b"}],
  "outputs": [{"name": "y", "from": "project"}]})";
const char kBad[] = "module b;\n\nexport fn f(x: f32[2]) -> f32[2] {\n    x +\n}\n";
const char* const kNames[] = {"a", "b", "x", "w", "zz", "y", "result"};

struct State {
  std::vector<RungTensor*> tensors, stale_tensors;
  std::vector<RungModule*> modules;
  std::vector<RungProgram*> programs;
  std::vector<RungSession*> sessions;
  std::vector<RungRunResult*> results;
  std::vector<Borrowed*> borrowed;
  std::vector<Producer*> producers;
  RungRunOptions* run_options = nullptr;
};

template <typename T>
T* any(Input& in, std::vector<T*>& v) {
  if (v.empty() || in.pick(8) == 0) return nullptr;
  return v[in.pick(static_cast<std::uint32_t>(v.size()))];
}

void expect_invalid(RungStatus* s) {
  if (check(s) != RUNG_INVALID_ARGUMENT) broken("a stale, forged or NULL handle was not INVALID_ARGUMENT");
}

void add_tensor(State& st, RungTensor* t, const Desc* d) {
  uint64_t bytes = 0;
  if (check(api->TensorByteSize(t, &bytes))) broken("a new tensor has no size");
  if (d) {
    std::uint64_t n = 1;
    for (auto e : d->shape) n *= static_cast<std::uint64_t>(e);
    bool block = d->dtype == RUNG_Q8_0 || d->dtype == RUNG_Q4_0;
    std::uint64_t want = block ? n / 32 * elem_bytes(d->dtype) : n * elem_bytes(d->dtype);
    if (bytes != want) broken("a tensor's byte size is not its description's");
  }
  const char* h = nullptr;
  if (check(api->TensorHash(t, &h)) || !h || std::strlen(h) != 64) broken("a tensor without a hash");
  st.tensors.push_back(t);
}

void step(Input& in, State& st) {
  std::uint32_t op = in.pick(16);
  if (trace)
    std::fprintf(stderr, "step %u at byte %zu (tensors %zu, modules %zu, programs %zu, sessions %zu, results %zu)\n", op, in.i - 1,
                 st.tensors.size(), st.modules.size(), st.programs.size(), st.sessions.size(), st.results.size());
  switch (op) {
    case 0: {  // a copied tensor
      Desc d = describe(in);
      RungTensor* t = nullptr;
      RungStatusCode c = check(api->TensorCreateCopy(d.dtype, d.ndim, d.shape.data(), d.has_strides ? d.strides.data() : nullptr,
                                                     d.data, in.pick(16) ? &t : nullptr));
      if (c == RUNG_OK && t) add_tensor(st, t, &d);
      if (c != RUNG_OK && t) broken("an out-parameter set on failure");
      break;
    }
    case 1: {  // a borrowed tensor: its release runs once, now on failure
      Desc d = describe(in);
      auto* b = new Borrowed;
      st.borrowed.push_back(b);
      RungTensor* t = nullptr;
      RungStatusCode c = check(api->TensorCreateBorrowed(d.dtype, d.ndim, d.shape.data(),
                                                         d.has_strides ? d.strides.data() : nullptr, d.data, on_release, b,
                                                         in.pick(16) ? &t : nullptr));
      if (c != RUNG_OK && b->released != 1) broken("a refused borrow did not release once");
      if (c == RUNG_OK) {
        if (b->released != 0) broken("a borrow released while in use");
        if (t) add_tensor(st, t, &d);
      }
      break;
    }
    case 2: {  // release a tensor; it becomes stale
      if (st.tensors.empty()) break;
      std::size_t k = in.pick(static_cast<std::uint32_t>(st.tensors.size()));
      api->ReleaseTensor(st.tensors[k]);
      st.stale_tensors.push_back(st.tensors[k]);
      st.tensors.erase(st.tensors.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
    case 3: {  // stale, forged and mistyped handles
      const char* s = nullptr;
      if (!st.stale_tensors.empty()) {
        RungTensor* t = st.stale_tensors[in.pick(static_cast<std::uint32_t>(st.stale_tensors.size()))];
        bool live = false;
        for (auto* x : st.tensors) live |= x == t;  // a reused slot has a new generation, so never equal
        if (live) broken("a released handle's value was issued again");
        expect_invalid(api->TensorHash(t, &s));
        api->ReleaseTensor(t);
      }
      std::uintptr_t forged = 0;
      for (int k = 0; k < 8; ++k) forged = (forged << 8) | in.byte();
      auto* fm = reinterpret_cast<RungModule*>(forged | 1);
      bool live = false;
      for (auto* m : st.modules) live |= m == fm;  // a forged value may hit a live module by chance
      if (!live) expect_invalid(api->ModuleName(fm, &s));
      if (RungTensor* t = any(in, st.tensors)) expect_invalid(api->ProgramTier(reinterpret_cast<RungProgram*>(t), &s));
      break;
    }
    case 4: {  // DLPack out and back in
      RungTensor* t = any(in, st.tensors);
      if (!t) break;
      RungTensor* back = nullptr;
      const char *h1 = nullptr, *h2 = nullptr;
      if (in.byte() & 1) {
        RungDLManagedTensorVersioned* m = nullptr;
        if (check(api->TensorToDLPack(t, &m)) != RUNG_OK) break;
        if (!(m->flags & RUNG_DL_FLAG_READ_ONLY)) broken("an export that is not read-only");
        if (check(api->TensorFromDLPack(m, static_cast<RungCopyPolicy>(in.pick(3)), &back)) != RUNG_OK) break;
      } else {
        RungDLManagedTensor* m = nullptr;
        if (check(api->TensorToDLPackLegacy(t, &m)) != RUNG_OK) break;
        if (check(api->TensorFromDLPackLegacy(m, RUNG_COPY_IF_NEEDED, &back)) != RUNG_OK) break;
      }
      check(api->TensorHash(t, &h1));
      check(api->TensorHash(back, &h2));
      if (!h1 || !h2 || std::strcmp(h1, h2) != 0) broken("a DLPack round trip changed the tensor");
      st.tensors.push_back(back);
      break;
    }
    case 5: {  // a DLPack struct from the input: its deleter runs once, now on failure
      Desc d = describe(in);
      auto* p = new Producer;
      st.producers.push_back(p);
      p->shape = d.shape;
      p->strides = d.strides;
      bool legacy = in.byte() & 1;
      RungDLTensor& dl = legacy ? p->legacy.dl_tensor : p->v.dl_tensor;
      dl.data = const_cast<void*>(d.data);
      dl.byte_offset = 0;
      std::uint8_t dev = in.byte();
      dl.device = {dev < 200 ? RUNG_DL_CPU : dev % 20, 0};
      static const RungDLDataType kTypes[] = {{2, 32, 1}, {2, 16, 1}, {4, 16, 1}, {2, 64, 1}, {0, 64, 1}, {0, 32, 1}, {0, 16, 1},
                                              {0, 8, 1},  {1, 64, 1}, {1, 32, 1}, {1, 16, 1}, {1, 8, 1},  {6, 8, 1}};
      std::uint8_t ty = in.byte();
      // The element width must match the harness's bound: the description's dtype when it has a
      // DLPack form, else an arbitrary (code, bits, lanes) with NULL data.
      if (d.dtype >= RUNG_F32 && d.dtype <= RUNG_BOOL && !(ty & 0x80)) {
        dl.dtype = kTypes[d.dtype - 1];
      } else {
        dl.dtype = {static_cast<std::uint8_t>(ty % 8), static_cast<std::uint8_t>(in.byte()), static_cast<std::uint16_t>(in.pick(3))};
        dl.data = nullptr;
      }
      dl.ndim = d.ndim;
      dl.shape = d.ndim > 0 ? p->shape.data() : nullptr;
      dl.strides = d.has_strides && d.ndim > 0 ? p->strides.data() : nullptr;
      RungTensor* t = nullptr;
      RungStatusCode c;
      if (legacy) {
        p->legacy.manager_ctx = p;
        p->legacy.deleter = producer_delete_legacy;
        c = check(api->TensorFromDLPackLegacy(&p->legacy, static_cast<RungCopyPolicy>(in.pick(3)), &t));
      } else {
        p->v.version = {in.pick(8) ? 1u : in.byte(), in.byte()};
        p->v.manager_ctx = p;
        p->v.deleter = producer_delete;
        c = check(api->TensorFromDLPack(&p->v, static_cast<RungCopyPolicy>(in.pick(3)), &t));
      }
      if (c != RUNG_OK && p->deleted != 1) broken("a refused DLPack import did not call the deleter once");
      if (c == RUNG_OK) st.tensors.push_back(t);
      break;
    }
    case 6: {  // load a module
      RungModule* m = nullptr;
      RungStatusCode c;
      switch (in.pick(4)) {
        case 0: c = check(api->ModuleLoadBytes("add.rung", kAdd, sizeof kAdd - 1, RUNG_SOURCE_RUNG, &m)); break;
        case 1: c = check(api->ModuleLoadBytes("center.json", kCenter, sizeof kCenter - 1, RUNG_SOURCE_WORKFLOW, &m)); break;
        case 2: c = check(api->ModuleLoadBytes("bad.rung", kBad, sizeof kBad - 1, RUNG_SOURCE_RUNG, &m)); break;
        default: {
          std::size_t len = in.pick(64);
          std::string bytes;
          while (len-- && !in.done()) bytes.push_back(static_cast<char>(in.byte()));
          // Not .rung source: a few bytes of it can loop for a very long time (`for i in 0..999999999`).
          c = check(api->ModuleLoadBytes("input", bytes.data(), bytes.size(), static_cast<int32_t>(1 + in.pick(4)), &m));
        }
      }
      if (c == RUNG_OK) st.modules.push_back(m);
      break;
    }
    case 7: {  // compile
      RungModule* m = any(in, st.modules);
      RungCompileOptions* o = nullptr;
      if (in.byte() & 1) {
        static const char* const kTiers[] = {"debug", "prod", "fast", "debgu", ""};
        static const char* const kClasses[] = {"exact", "tight", "default", "loose", "x"};
        check(api->CreateCompileOptions(&o));
        if (in.byte() & 1) check(api->CompileOptionsSetTier(o, kTiers[in.pick(5)]));
        if (in.byte() & 1) check(api->CompileOptionsSetTolerance(o, kClasses[in.pick(5)]));
      }
      RungProgram* p = nullptr;
      if (check(api->ProgramCompile(m, o, &p)) == RUNG_OK) {
        st.programs.push_back(p);
        uint64_t n = 0;
        check(api->ProgramEntryCount(p, &n));
        const char *name = nullptr, *type = nullptr;
        check(api->ProgramEntryParam(p, in.pick(3), in.pick(3), &name, &type, nullptr));
      }
      api->ReleaseCompileOptions(o);
      break;
    }
    case 8: {  // open a session (at most two at a time)
      RungProgram* p = any(in, st.programs);
      if (st.sessions.size() >= 2) break;
      RungSessionOptions* o = nullptr;
      check(api->CreateSessionOptions(&o));
      static const char* const kBackends[] = {"reference", "cpu", "tpu"};
      check(api->SessionOptionsSetBackend(o, kBackends[in.pick(3)]));
      check(api->SessionOptionsSetReceipts(o, RUNG_RECEIPTS_IGNORE));
      check(api->SessionOptionsSetWriteRecords(o, 0));
      check(api->SessionOptionsSetHome(o, "/nonexistent/rung-capi-fuzz-home"));
      check(api->SessionOptionsSetSetting(o, "RUNG_CPU_THREADS", "1"));
      RungSession* s = nullptr;
      if (check(api->SessionOpen(p, o, &s)) == RUNG_OK) st.sessions.push_back(s);
      api->ReleaseSessionOptions(o);
      break;
    }
    case 9: {  // run with any inputs under any names
      RungSession* s = any(in, st.sessions);
      std::vector<const char*> names;
      std::vector<const RungTensor*> ins;
      for (std::size_t k = in.pick(4); k-- > 0;) {
        names.push_back(in.pick(9) ? kNames[in.pick(7)] : nullptr);
        ins.push_back(in.pick(9) ? any(in, st.tensors) : nullptr);
      }
      static const char* const kEntries[] = {nullptr, "add", "center", "nope"};
      RungRunResult* r = nullptr;
      const RungRunOptions* ro = in.pick(4) == 0 ? st.run_options : nullptr;
      if (check(api->SessionRun(s, kEntries[in.pick(4)], names.size(), names.data(), ins.data(), ro, &r)) == RUNG_OK) {
        uint64_t n = 0;
        check(api->RunResultOutputCount(r, &n));
        for (uint64_t k = 0; k < n; ++k) {
          RungTensor* t = nullptr;
          if (check(api->RunResultOutput(r, k, nullptr, &t)) == RUNG_OK) add_tensor(st, t, nullptr);
        }
        st.results.push_back(r);
      }
      break;
    }
    case 10: {  // release anything, twice as often as not
      switch (in.pick(4)) {
        case 0: if (RungSession* s = any(in, st.sessions)) { api->ReleaseSession(s); api->ReleaseSession(s); std::erase(st.sessions, s); } break;
        case 1: if (RungProgram* p = any(in, st.programs)) { api->ReleaseProgram(p); std::erase(st.programs, p); } break;
        case 2: if (RungModule* m = any(in, st.modules)) { api->ReleaseModule(m); std::erase(st.modules, m); } break;
        default: if (RungRunResult* r = any(in, st.results)) { api->ReleaseRunResult(r); std::erase(st.results, r); } break;
      }
      break;
    }
    case 11: {  // NULL out-parameters and NULL handles
      expect_invalid(api->TensorShape(any(in, st.tensors), nullptr));
      expect_invalid(api->ProgramFingerprint(any(in, st.programs), nullptr));
      expect_invalid(api->SessionBackend(nullptr, nullptr));
      expect_invalid(api->RunResultRecordJson(any(in, st.results), nullptr));
      break;
    }
    case 12: {  // cancellation
      if (!st.run_options) check(api->CreateRunOptions(&st.run_options));
      if (in.byte() & 1) check(api->RunOptionsCancel(st.run_options));
      break;
    }
    case 13: {  // results by name
      RungRunResult* r = any(in, st.results);
      RungTensor* t = nullptr;
      if (check(api->RunResultOutputByName(r, kNames[in.pick(7)], &t)) == RUNG_OK) add_tensor(st, t, nullptr);
      const char* s = nullptr;
      if (r) check(api->RunResultRecordJson(r, &s));
      break;
    }
    default: {  // accessors
      RungTensor* t = any(in, st.tensors);
      const int64_t* shape = nullptr;
      int32_t nd = 0, b = 0;
      const void* data = nullptr;
      RungDType dt = 0;
      const char* name = nullptr;
      if (check(api->TensorNDim(t, &nd)) == RUNG_OK && (nd < 0 || nd > 4)) broken("a rank no description gave");
      check(api->TensorShape(t, &shape));
      check(api->TensorData(t, &data));
      check(api->TensorIsBorrowed(t, &b));
      if (check(api->TensorDType(t, &dt)) == RUNG_OK && check(api->DTypeName(dt, &name)) != RUNG_OK) broken("a dtype without a name");
      check(api->DTypeName(static_cast<RungDType>(in.sbyte()), &name));
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!api) api = rung_get_api(RUNG_API_VERSION);
  if (!api) broken("no table");
  for (std::size_t k = 0; k < sizeof g_buffer; ++k) g_buffer[k] = static_cast<std::uint8_t>(k * 7);
  Input in{data, size};
  State st;
  for (int steps = 0; steps < 64 && !in.done(); ++steps) step(in, st);
  for (auto* r : st.results) api->ReleaseRunResult(r);
  for (auto* t : st.tensors) api->ReleaseTensor(t);
  for (auto* s : st.sessions) api->ReleaseSession(s);
  for (auto* p : st.programs) api->ReleaseProgram(p);
  for (auto* m : st.modules) api->ReleaseModule(m);
  api->ReleaseRunOptions(st.run_options);
  // Everything released: every borrowed buffer and every DLPack producer given back once.
  for (auto* b : st.borrowed) {
    if (b->released != 1) broken("a borrowed buffer was not released exactly once");
    delete b;
  }
  for (auto* p : st.producers) {
    if (p->deleted != 1) broken("a DLPack producer's deleter did not run exactly once");
    delete p;
  }
  return 0;
}
