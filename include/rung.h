/* The C ABI of rung (docs/api-c.md): C11, stable across releases.
 *
 * One exported entry point returns a table of function pointers:
 *
 *     const RungApi* api = rung_get_api(RUNG_API_VERSION);   // NULL: the library is older
 *
 * The table only grows: a release appends entries and bumps RUNG_API_VERSION; nothing is
 * reordered, removed or changed (src/capi/api_entries.txt lists them; a test holds the struct
 * to it). A program built against version N runs with any library of version >= N.
 *
 * Conventions
 * - Every call that can fail returns a RungStatus*: NULL means success; otherwise the caller
 *   owns the status and releases it with ReleaseStatus. Out-parameters come last and are set
 *   only on success.
 * - Handles are opaque. Each type has one Release<Type>; releasing NULL does nothing, and so
 *   does releasing a handle twice. A released (or never issued) handle passed to any other call
 *   gets an INVALID_ARGUMENT status (M0007), never a crash: handles are slot numbers with a
 *   generation, not pointers to freed memory.
 * - Strings handed out (const char*) are UTF-8, NUL-terminated and owned by the handle they
 *   came from: valid until it is released.
 * - No exception and no C++ type crosses this boundary; integers are fixed-width (int64_t
 *   extents: wasm32 is ILP32).
 * - Diagnostics codes (docs/diagnostics.md; M0xxx are the boundary's own, docs/api-c.md):
 *   M0001 no parameter (or output) of that name, M0002 a parameter without input, M0003 dtype
 *   differs or is unknown, M0004 rank or extent differs, M0005 a symbolic dim bound to two
 *   extents, M0006 not compact row-major and the copy refused, M0007 a null pointer, a released
 *   handle, a negative extent or a byte size past 64 bits, M0008 memory of another device,
 *   M0009 no exchange form, M0011 a session called from two threads at once, M0012 cancelled,
 *   M0020 (warning) an input was copied.
 *
 * Threads
 * - RungModule, RungProgram, RungTensor, RungRunResult, RungStatus: immutable once made; any
 *   number of threads may use them at once.
 * - RungSession: one call at a time. A second thread calling it while a run is in progress
 *   gets REFUSED (M0011), never undefined behaviour. Callbacks run on the calling thread.
 *   Each session's cpu backend uses every hardware thread unless the setting
 *   RUNG_CPU_THREADS is given (SessionOptionsSetSetting): two sessions running at once
 *   oversubscribe the machine otherwise.
 * - Option builders (RungCompileOptions, RungSessionOptions, RungRunOptions): one thread at a
 *   time, except RunOptionsCancel, which any thread may call while a run uses the options.
 * - Releasing a handle while another thread still uses it is the caller's error; rung keeps
 *   the object alive until calls already in progress return.
 * - The library's registries (ops, backends) are built once, by the first rung_get_api. */
#ifndef RUNG_H_
#define RUNG_H_

#include <stddef.h>
#include <stdint.h>

#include "rung/dlpack.h"

#define RUNG_API_VERSION 1

#define RUNG_C_EXPORT __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles. */
typedef struct RungStatus RungStatus;
typedef struct RungModule RungModule;
typedef struct RungProgram RungProgram;
typedef struct RungSession RungSession;
typedef struct RungTensor RungTensor;
typedef struct RungRunResult RungRunResult;
typedef struct RungCompileOptions RungCompileOptions;
typedef struct RungSessionOptions RungSessionOptions;
typedef struct RungRunOptions RungRunOptions;

/* Status codes: what the caller can do about it. */
typedef int32_t RungStatusCode;
#define RUNG_OK 0
#define RUNG_INVALID_ARGUMENT 1 /* the call's own arguments: a null pointer, a released handle, a wrong input */
#define RUNG_DIAGNOSTICS 2      /* the program or its data has errors: read StatusDiagnostic* */
#define RUNG_NOT_AVAILABLE 3    /* not in this build or on this machine (a backend, a device, an exchange form) */
#define RUNG_REFUSED 4          /* valid but refused by policy (receipts, a copy not allowed, a busy session) */
#define RUNG_OUT_OF_MEMORY 5
#define RUNG_CANCELLED 6 /* RunOptionsCancel (M0012) */
#define RUNG_INTERNAL 7  /* a bug in rung: please report the message */

/* Element types: rung's own codes (the canonical encoding's; never renumbered). */
typedef int32_t RungDType;
#define RUNG_F32 1
#define RUNG_F16 2
#define RUNG_BF16 3
#define RUNG_F64 4
#define RUNG_I64 5
#define RUNG_I32 6
#define RUNG_I16 7
#define RUNG_I8 8
#define RUNG_U64 9
#define RUNG_U32 10
#define RUNG_U16 11
#define RUNG_U8 12
#define RUNG_BOOL 13 /* one byte, 0 or 1 */
#define RUNG_Q8_0 14 /* block-quantized: 32 values per 34-byte block; no DLPack form (M0009) */
#define RUNG_Q4_0 15 /* block-quantized: 32 values per 18-byte block; no DLPack form (M0009) */

/* Diagnostic severities. */
#define RUNG_SEVERITY_ERROR 0
#define RUNG_SEVERITY_WARNING 1
#define RUNG_SEVERITY_NOTE 2

/* ModuleLoadBytes: what the bytes are. */
#define RUNG_SOURCE_RUNG 0
#define RUNG_SOURCE_KEG 1
#define RUNG_SOURCE_WORKFLOW 2
#define RUNG_SOURCE_ONNX 3 /* an ONNX ModelProto; external data cannot be read from bytes (I0008) */

/* SessionOptionsSetReceipts: kernels without a conformance receipt for this device. */
#define RUNG_RECEIPTS_REQUIRE 0 /* refuse the run (Q0010) */
#define RUNG_RECEIPTS_CONFORM 1 /* check them now and keep the receipts (the default) */
#define RUNG_RECEIPTS_IGNORE 2  /* run them, recorded as unverified */

/* TensorFromDLPack: a tensor that is not compact row-major. */
typedef int32_t RungCopyPolicy;
#define RUNG_COPY_IF_NEEDED 0 /* copied once (the tensor is then not borrowed) */
#define RUNG_COPY_NEVER 1     /* refused: REFUSED, M0006 */

/* Callbacks (SessionOptionsSetProgress, SessionOptionsSetPrint); they must not unwind. */
typedef void (*RungProgressCallback)(void* context, const char* phase, int64_t done, int64_t total, const char* item,
                                     double elapsed_s, int32_t finished);
typedef void (*RungPrintCallback)(void* context, const char* text, uint64_t length);
/* TensorCreateBorrowed: called once when rung no longer needs the memory. */
typedef void (*RungReleaseCallback)(void* context);

typedef struct RungApi {
  /* --- status (NULL is success: code RUNG_OK, message "", no diagnostics) --- */
  RungStatusCode (*StatusCode)(const RungStatus* status);
  /* The first error, as one line: "E2102: ... (file:line:column)". */
  const char* (*StatusMessage)(const RungStatus* status);
  uint64_t (*StatusDiagnosticCount)(const RungStatus* status);
  /* Diagnostic `index`: any out-parameter may be NULL. file is "" and line, column 0 when the
   * diagnostic points at no source. */
  RungStatus* (*StatusDiagnostic)(const RungStatus* status, uint64_t index, const char** code, int32_t* severity,
                                  const char** message, const char** file, uint32_t* line, uint32_t* column);
  /* Every diagnostic as the CLI's --error-format=json prints them (a JSON array). */
  const char* (*StatusDiagnosticsJson)(const RungStatus* status);
  void (*ReleaseStatus)(RungStatus* status);

  /* --- modules: what a .rung, .keg or workflow .json file says --- */
  /* The kind from the extension (.rung, .keg, .json); a .rung file's imports next to it. */
  RungStatus* (*ModuleLoadFile)(const char* path, RungModule** out);
  /* Bytes in memory (copied), named for diagnostics and records; kind RUNG_SOURCE_*. */
  RungStatus* (*ModuleLoadBytes)(const char* name, const void* bytes, uint64_t size, int32_t kind, RungModule** out);
  RungStatus* (*ModuleName)(const RungModule* module, const char** out);
  void (*ReleaseModule)(RungModule* module);

  /* --- compile options: nothing is defaulted (a module's declarations apply) --- */
  RungStatus* (*CreateCompileOptions)(RungCompileOptions** out);
  RungStatus* (*CompileOptionsSetTier)(RungCompileOptions* options, const char* tier);           /* debug|prod|fast */
  RungStatus* (*CompileOptionsSetTolerance)(RungCompileOptions* options, const char* tolerance); /* exact|tight|default|loose */
  void (*ReleaseCompileOptions)(RungCompileOptions* options);

  /* --- programs: compiled, immutable --- */
  /* options NULL: none given (the module must declare its tier). */
  RungStatus* (*ProgramCompile)(const RungModule* module, const RungCompileOptions* options, RungProgram** out);
  RungStatus* (*ProgramFingerprint)(const RungProgram* program, const char** out); /* what `rung run` prints */
  RungStatus* (*ProgramTier)(const RungProgram* program, const char** out);
  RungStatus* (*ProgramTolerance)(const RungProgram* program, const char** out);
  /* The warnings of loading and compiling (C0016: an option overrides a declaration), as a
   * JSON array; "[]" for none. */
  RungStatus* (*ProgramWarningsJson)(const RungProgram* program, const char** out);
  /* The entries: the exported functions, sorted by name. */
  RungStatus* (*ProgramEntryCount)(const RungProgram* program, uint64_t* out);
  RungStatus* (*ProgramEntryName)(const RungProgram* program, uint64_t entry, const char** out);
  RungStatus* (*ProgramEntryParamCount)(const RungProgram* program, uint64_t entry, uint64_t* out);
  /* A parameter's name ("x", a struct's field "p.w1") and type ("f32[N, 8]"). */
  RungStatus* (*ProgramEntryParam)(const RungProgram* program, uint64_t entry, uint64_t param, const char** name,
                                   const char** type, RungDType* dtype);
  RungStatus* (*ProgramEntryResultCount)(const RungProgram* program, uint64_t entry, uint64_t* out);
  RungStatus* (*ProgramEntryResult)(const RungProgram* program, uint64_t entry, uint64_t result, const char** name,
                                    const char** type, RungDType* dtype);
  void (*ReleaseProgram)(RungProgram* program);

  /* --- session options (defaults: backend "cpu", receipts CONFORM, the process environment
   *     for the store folder and backend settings, records written) --- */
  RungStatus* (*CreateSessionOptions)(RungSessionOptions** out);
  RungStatus* (*SessionOptionsSetBackend)(RungSessionOptions* options, const char* backend);
  RungStatus* (*SessionOptionsSetReceipts)(RungSessionOptions* options, int32_t receipts); /* RUNG_RECEIPTS_* */
  /* The store of receipts, run records and kernel caches (default $RUNG_HOME, else ~/.rung). */
  RungStatus* (*SessionOptionsSetHome)(RungSessionOptions* options, const char* path);
  RungStatus* (*SessionOptionsSetWriteRecords)(RungSessionOptions* options, int32_t write); /* 0: records are values only */
  /* A backend setting by its variable name: RUNG_CPU_THREADS, RUNG_CPU_SIMD, RUNG_CUDA_FUSION,
   * RUNG_WEBGPU_LIBRARY, RUNG_WEBGPU_ADAPTER (the library reads no environment of its own). */
  RungStatus* (*SessionOptionsSetSetting)(RungSessionOptions* options, const char* name, const char* value);
  /* callback NULL: silent. */
  RungStatus* (*SessionOptionsSetProgress)(RungSessionOptions* options, RungProgressCallback callback, void* context);
  /* The program's `print` output, a line at a time; callback NULL: discarded. */
  RungStatus* (*SessionOptionsSetPrint)(RungSessionOptions* options, RungPrintCallback callback, void* context);
  void (*ReleaseSessionOptions)(RungSessionOptions* options);

  /* --- sessions: a program bound to one backend --- */
  /* options NULL: the defaults above. Conforms kernels without receipts when asked to. */
  RungStatus* (*SessionOpen)(const RungProgram* program, const RungSessionOptions* options, RungSession** out);
  RungStatus* (*SessionBackend)(const RungSession* session, const char** out);
  void (*ReleaseSession)(RungSession* session);

  /* --- run options --- */
  RungStatus* (*CreateRunOptions)(RungRunOptions** out);
  /* Folders where relative data reads (read_csv) are looked up, in order. */
  RungStatus* (*RunOptionsAddDataDir)(RungRunOptions* options, const char* dir);
  RungStatus* (*RunOptionsSetBaseDir)(RungRunOptions* options, const char* dir);
  /* From any thread: runs using these options stop between statements with CANCELLED
   * (M0012); the mark stays until the options are released. */
  RungStatus* (*RunOptionsCancel)(RungRunOptions* options);
  void (*ReleaseRunOptions)(RungRunOptions* options);

  /* --- tensors: immutable; elements row-major, little-endian --- */
  /* The caller's memory used in place, never written. Compact row-major only (strides NULL,
   * or the row-major ones): otherwise REFUSED, M0006 (TensorCreateCopy copies any strides).
   * `release` (may be NULL) is called exactly once whatever the outcome: on success when the
   * last rung reference to the memory goes (on whichever thread drops it: a run's outputs may
   * share the bytes), on failure before the call returns. */
  RungStatus* (*TensorCreateBorrowed)(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                                      const void* data, RungReleaseCallback release, void* context, RungTensor** out);
  /* The elements copied into memory rung owns; strides (in elements, negative too) walked. */
  RungStatus* (*TensorCreateCopy)(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                                  const void* data, RungTensor** out);
  RungStatus* (*TensorDType)(const RungTensor* tensor, RungDType* out);
  RungStatus* (*TensorNDim)(const RungTensor* tensor, int32_t* out);
  RungStatus* (*TensorShape)(const RungTensor* tensor, const int64_t** out); /* NDim extents */
  RungStatus* (*TensorData)(const RungTensor* tensor, const void** out);    /* compact row-major bytes */
  RungStatus* (*TensorByteSize)(const RungTensor* tensor, uint64_t* out);
  /* SHA3-256 of dtype, shape and bytes, hex: the hash `rung run` prints for an output. */
  RungStatus* (*TensorHash)(const RungTensor* tensor, const char** out);
  /* 1 when the bytes are the caller's (TensorCreateBorrowed, a DLPack import not copied). */
  RungStatus* (*TensorIsBorrowed)(const RungTensor* tensor, int32_t* out);
  /* A read-only host DLPack tensor over the same bytes (no copy); the caller owns it and calls
   * its deleter once. q8_0 and q4_0 have no DLPack form (NOT_AVAILABLE, M0009). */
  RungStatus* (*TensorToDLPack)(const RungTensor* tensor, RungDLManagedTensorVersioned** out);
  /* Takes `managed` over in every case: on success its deleter runs once when rung no longer
   * needs the bytes (compact ones are borrowed, strided ones copied or refused by `copy`); on
   * failure before the call returns. An unknown major version: only the deleter is called. */
  RungStatus* (*TensorFromDLPack)(RungDLManagedTensorVersioned* managed, RungCopyPolicy copy, RungTensor** out);
  /* The same for the legacy struct (numpy 1.24 and torch 1.13 capsules, "dltensor"). */
  RungStatus* (*TensorToDLPackLegacy)(const RungTensor* tensor, RungDLManagedTensor** out);
  RungStatus* (*TensorFromDLPackLegacy)(RungDLManagedTensor* managed, RungCopyPolicy copy, RungTensor** out);
  void (*ReleaseTensor)(RungTensor* tensor);

  /* --- running --- */
  /* entry NULL: the only exported function. Inputs by parameter name; the tensors are not
   * taken over (rung holds its own references while it needs them). options NULL: defaults. */
  RungStatus* (*SessionRun)(RungSession* session, const char* entry, uint64_t input_count, const char* const* input_names,
                            const RungTensor* const* inputs, const RungRunOptions* options, RungRunResult** out);
  RungStatus* (*RunResultOutputCount)(const RungRunResult* result, uint64_t* out);
  /* A new handle to output `index` (the entry's result order): release it. name may be NULL. */
  RungStatus* (*RunResultOutput)(const RungRunResult* result, uint64_t index, const char** name, RungTensor** out);
  RungStatus* (*RunResultOutputByName)(const RungRunResult* result, const char* name, RungTensor** out);
  /* The run record's id in the store ("" when not written) and the record itself (JSON). */
  RungStatus* (*RunResultRecordId)(const RungRunResult* result, const char** out);
  RungStatus* (*RunResultRecordJson)(const RungRunResult* result, const char** out);
  /* The run's warnings (M0020 for a copied input, ...) as a JSON array, "[]" for none. */
  RungStatus* (*RunResultWarningsJson)(const RungRunResult* result, const char** out);
  /* How the inputs came in: borrowed in place, or copied (and the bytes copied). */
  RungStatus* (*RunResultInputStats)(const RungRunResult* result, uint64_t* borrowed, uint64_t* copied,
                                     uint64_t* bytes_copied);
  void (*ReleaseRunResult)(RungRunResult* result);

  /* --- misc --- */
  RungStatus* (*DTypeName)(RungDType dtype, const char** out); /* "f32", "bool"; static strings */
} RungApi;

/* The function table for callers built against `version` (RUNG_API_VERSION), or NULL when
 * this library is older than that (or version is 0). The first call builds the registries. */
RUNG_C_EXPORT const RungApi* rung_get_api(uint32_t version);
/* "rung 0.1.0 (C ABI 1)": the library's version. */
RUNG_C_EXPORT const char* rung_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* RUNG_H_ */
