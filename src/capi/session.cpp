// Session options, sessions, run options, runs and their results through the C ABI.
#include <utility>

#include "capi/entries.h"
#include "capi/objects.h"

namespace rung::capi {
namespace {

template <typename T, typename H, typename F>
RungStatus* with(H* handle, F&& f) {
  auto h = lookup<T>(handle);
  if (!h) return bad_handle(h.why);
  return f(*h);
}

std::string output_names(const RunResult& r) {
  std::string s;
  for (const Output& o : r.outputs) s += (s.empty() ? "" : ", ") + o.name;
  return s.empty() ? "none" : s;
}

}  // namespace

// --- session options ---

RungStatus* CreateSessionOptions(RungSessionOptions** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!out) return null_argument("out");
    *out = issue<RungSessionOptions>(std::make_shared<SessionOptionsObj>());
    return nullptr;
  });
}

RungStatus* SessionOptionsSetBackend(RungSessionOptions* options, const char* backend) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      if (!backend) return null_argument("backend");
      o.options.backend = backend;  // checked by SessionOpen (C0015)
      return nullptr;
    });
  });
}

RungStatus* SessionOptionsSetReceipts(RungSessionOptions* options, int32_t receipts) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      switch (receipts) {
        case RUNG_RECEIPTS_REQUIRE: o.options.receipts = Receipts::require; return nullptr;
        case RUNG_RECEIPTS_CONFORM: o.options.receipts = Receipts::conform; return nullptr;
        case RUNG_RECEIPTS_IGNORE: o.options.receipts = Receipts::ignore; return nullptr;
        default:
          return fail(RUNG_INVALID_ARGUMENT, "M0007",
                      "receipts policy " + std::to_string(receipts) + " is none of RUNG_RECEIPTS_REQUIRE, _CONFORM, _IGNORE");
      }
    });
  });
}

RungStatus* SessionOptionsSetHome(RungSessionOptions* options, const char* path) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      if (!path) return null_argument("path");
      o.options.environment.home = path;
      return nullptr;
    });
  });
}

RungStatus* SessionOptionsSetWriteRecords(RungSessionOptions* options, int32_t write) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      o.options.write_records = write != 0;
      return nullptr;
    });
  });
}

RungStatus* SessionOptionsSetSetting(RungSessionOptions* options, const char* name, const char* value) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      if (!name) return null_argument("name");
      if (!value) return null_argument("value");
      o.options.environment.settings[name] = value;
      return nullptr;
    });
  });
}

RungStatus* SessionOptionsSetProgress(RungSessionOptions* options, RungProgressCallback callback, void* context) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      if (!callback) {
        o.options.progress = nullptr;
        return nullptr;
      }
      o.options.progress = [callback, context](const Progress& p) {
        callback(context, p.phase.c_str(), p.done, p.total, p.item.c_str(), p.elapsed_s, p.finished ? 1 : 0);
      };
      return nullptr;
    });
  });
}

RungStatus* SessionOptionsSetPrint(RungSessionOptions* options, RungPrintCallback callback, void* context) noexcept {
  return guard([&]() -> RungStatus* {
    return with<SessionOptionsObj>(options, [&](SessionOptionsObj& o) -> RungStatus* {
      if (!callback) {
        o.options.print = nullptr;
        return nullptr;
      }
      o.options.print = [callback, context](std::string_view text) {
        std::string s(text);  // NUL-terminated for C
        callback(context, s.c_str(), s.size());
      };
      return nullptr;
    });
  });
}

void ReleaseSessionOptions(RungSessionOptions* options) noexcept { release<SessionOptionsObj>(options); }

// --- sessions ---

RungStatus* SessionOpen(const RungProgram* program, const RungSessionOptions* options, RungSession** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto p = lookup<ProgramObj>(program);
    if (!p) return bad_handle(p.why);
    std::shared_ptr<SessionOptionsObj> o;
    if (options) {
      auto h = lookup<SessionOptionsObj>(options);
      if (!h) return bad_handle(h.why);
      o = h.object;
    }
    if (!out) return null_argument("out");
    auto r = o ? Session::open(p->program, o->options) : Session::open(p->program, SessionOptions{});
    if (!r.ok()) return status_of(r.diagnostics());
    auto s = std::make_shared<SessionObj>(SessionObj{std::move(r).value(), {}});
    s->backend = s->session.backend();
    *out = issue<RungSession>(std::move(s));
    return nullptr;
  });
}

RungStatus* SessionBackend(const RungSession* session, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto s = lookup<SessionObj>(session);
    if (!s) return bad_handle(s.why);
    if (!out) return null_argument("out");
    *out = s->backend.c_str();
    return nullptr;
  });
}

void ReleaseSession(RungSession* session) noexcept { release<SessionObj>(session); }

// --- run options ---

RungStatus* CreateRunOptions(RungRunOptions** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!out) return null_argument("out");
    auto o = std::make_shared<RunOptionsObj>();
    o->options.cancel = &o->cancel;
    *out = issue<RungRunOptions>(std::move(o));
    return nullptr;
  });
}

RungStatus* RunOptionsAddDataDir(RungRunOptions* options, const char* dir) noexcept {
  return guard([&]() -> RungStatus* {
    return with<RunOptionsObj>(options, [&](RunOptionsObj& o) -> RungStatus* {
      if (!dir) return null_argument("dir");
      o.options.data_dirs.emplace_back(dir);
      return nullptr;
    });
  });
}

RungStatus* RunOptionsSetBaseDir(RungRunOptions* options, const char* dir) noexcept {
  return guard([&]() -> RungStatus* {
    return with<RunOptionsObj>(options, [&](RunOptionsObj& o) -> RungStatus* {
      if (!dir) return null_argument("dir");
      o.options.base_dir = dir;
      return nullptr;
    });
  });
}

RungStatus* RunOptionsCancel(RungRunOptions* options) noexcept {
  return guard([&]() -> RungStatus* {
    return with<RunOptionsObj>(options, [&](RunOptionsObj& o) -> RungStatus* {
      o.cancel.store(true);
      return nullptr;
    });
  });
}

void ReleaseRunOptions(RungRunOptions* options) noexcept { release<RunOptionsObj>(options); }

// --- runs ---

RungStatus* SessionRun(RungSession* session, const char* entry, uint64_t input_count, const char* const* input_names,
                       const RungTensor* const* inputs, const RungRunOptions* options, RungRunResult** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto s = lookup<SessionObj>(session);
    if (!s) return bad_handle(s.why);
    if (input_count > 0 && !input_names) return null_argument("input_names");
    if (input_count > 0 && !inputs) return null_argument("inputs");
    std::shared_ptr<RunOptionsObj> o;  // held for the run: its cancel flag is read there
    if (options) {
      auto h = lookup<RunOptionsObj>(options);
      if (!h) return bad_handle(h.why);
      o = h.object;
    }
    if (!out) return null_argument("out");
    Inputs in;
    in.reserve(static_cast<std::size_t>(input_count));
    for (uint64_t i = 0; i < input_count; ++i) {
      if (!input_names[i]) return fail(RUNG_INVALID_ARGUMENT, "M0007", "input name " + std::to_string(i) + " is NULL");
      auto t = lookup<TensorObj>(inputs[i]);
      if (!t) return fail(RUNG_INVALID_ARGUMENT, "M0007", "input `" + std::string(input_names[i]) + "`: " + t.why);
      in.push_back({input_names[i], t->tensor, {}});
    }
    auto r = s->session.run(entry ? std::string_view(entry) : std::string_view(), in, o ? o->options : RunOptions{});
    if (!r.ok()) return status_of(r.diagnostics());
    auto res = std::make_shared<RunResultObj>();
    res->result = std::move(r).value();
    *out = issue<RungRunResult>(std::move(res));
    return nullptr;
  });
}

RungStatus* RunResultOutputCount(const RungRunResult* result, uint64_t* out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!out) return null_argument("out");
    *out = r->result.outputs.size();
    return nullptr;
  });
}

RungStatus* RunResultOutput(const RungRunResult* result, uint64_t index, const char** name, RungTensor** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!out) return null_argument("out");
    const auto& outs = r->result.outputs;
    if (index >= outs.size())
      return fail(RUNG_INVALID_ARGUMENT, "M0007",
                  "output " + std::to_string(index) + " of a run with " + std::to_string(outs.size()) + " outputs");
    const Output& o = outs[static_cast<std::size_t>(index)];
    auto t = std::make_shared<TensorObj>();
    t->tensor = o.tensor;  // shares the bytes
    *out = issue<RungTensor>(std::move(t));
    if (name) *name = o.name.c_str();
    return nullptr;
  });
}

RungStatus* RunResultOutputByName(const RungRunResult* result, const char* name, RungTensor** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!name) return null_argument("name");
    if (!out) return null_argument("out");
    const Tensor* found = r->result.output(name);
    if (!found)
      return fail(RUNG_INVALID_ARGUMENT, "M0001", "no output named `" + std::string(name) + "`",
                  {"the outputs are: " + output_names(r->result)});
    auto t = std::make_shared<TensorObj>();
    t->tensor = *found;
    *out = issue<RungTensor>(std::move(t));
    return nullptr;
  });
}

RungStatus* RunResultRecordId(const RungRunResult* result, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!out) return null_argument("out");
    *out = r->result.record.id.c_str();
    return nullptr;
  });
}

RungStatus* RunResultRecordJson(const RungRunResult* result, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!out) return null_argument("out");
    *out = r->result.record.json.c_str();
    return nullptr;
  });
}

RungStatus* RunResultWarningsJson(const RungRunResult* result, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    if (!out) return null_argument("out");
    std::call_once(r->warnings_once, [&] { r->warnings_json = r->result.warnings.json(); });
    *out = r->warnings_json.c_str();
    return nullptr;
  });
}

RungStatus* RunResultInputStats(const RungRunResult* result, uint64_t* borrowed, uint64_t* copied,
                                uint64_t* bytes_copied) noexcept {
  return guard([&]() -> RungStatus* {
    auto r = lookup<RunResultObj>(result);
    if (!r) return bad_handle(r.why);
    const RunStats& st = r->result.stats;
    if (borrowed) *borrowed = st.inputs_borrowed;
    if (copied) *copied = st.inputs_copied;
    if (bytes_copied) *bytes_copied = st.bytes_copied;
    return nullptr;
  });
}

void ReleaseRunResult(RungRunResult* result) noexcept { release<RunResultObj>(result); }

}  // namespace rung::capi
