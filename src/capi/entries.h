// The functions behind RungApi's pointers (include/rung.h documents each), one per entry,
// each noexcept. capi_table.cpp puts them in the table in api_entries.txt's order.
#pragma once

#include "rung.h"

namespace rung::capi {

// status.cpp
RungStatusCode StatusCode(const RungStatus* status) noexcept;
const char* StatusMessage(const RungStatus* status) noexcept;
uint64_t StatusDiagnosticCount(const RungStatus* status) noexcept;
RungStatus* StatusDiagnostic(const RungStatus* status, uint64_t index, const char** code, int32_t* severity,
                             const char** message, const char** file, uint32_t* line, uint32_t* column) noexcept;
const char* StatusDiagnosticsJson(const RungStatus* status) noexcept;
void ReleaseStatus(RungStatus* status) noexcept;

// program.cpp
RungStatus* ModuleLoadFile(const char* path, RungModule** out) noexcept;
RungStatus* ModuleLoadBytes(const char* name, const void* bytes, uint64_t size, int32_t kind, RungModule** out) noexcept;
RungStatus* ModuleName(const RungModule* module, const char** out) noexcept;
void ReleaseModule(RungModule* module) noexcept;
RungStatus* CreateCompileOptions(RungCompileOptions** out) noexcept;
RungStatus* CompileOptionsSetTier(RungCompileOptions* options, const char* tier) noexcept;
RungStatus* CompileOptionsSetTolerance(RungCompileOptions* options, const char* tolerance) noexcept;
void ReleaseCompileOptions(RungCompileOptions* options) noexcept;
RungStatus* ProgramCompile(const RungModule* module, const RungCompileOptions* options, RungProgram** out) noexcept;
RungStatus* ProgramFingerprint(const RungProgram* program, const char** out) noexcept;
RungStatus* ProgramTier(const RungProgram* program, const char** out) noexcept;
RungStatus* ProgramTolerance(const RungProgram* program, const char** out) noexcept;
RungStatus* ProgramWarningsJson(const RungProgram* program, const char** out) noexcept;
RungStatus* ProgramEntryCount(const RungProgram* program, uint64_t* out) noexcept;
RungStatus* ProgramEntryName(const RungProgram* program, uint64_t entry, const char** out) noexcept;
RungStatus* ProgramEntryParamCount(const RungProgram* program, uint64_t entry, uint64_t* out) noexcept;
RungStatus* ProgramEntryParam(const RungProgram* program, uint64_t entry, uint64_t param, const char** name,
                              const char** type, RungDType* dtype) noexcept;
RungStatus* ProgramEntryResultCount(const RungProgram* program, uint64_t entry, uint64_t* out) noexcept;
RungStatus* ProgramEntryResult(const RungProgram* program, uint64_t entry, uint64_t result, const char** name,
                               const char** type, RungDType* dtype) noexcept;
void ReleaseProgram(RungProgram* program) noexcept;

// session.cpp
RungStatus* CreateSessionOptions(RungSessionOptions** out) noexcept;
RungStatus* SessionOptionsSetBackend(RungSessionOptions* options, const char* backend) noexcept;
RungStatus* SessionOptionsSetReceipts(RungSessionOptions* options, int32_t receipts) noexcept;
RungStatus* SessionOptionsSetHome(RungSessionOptions* options, const char* path) noexcept;
RungStatus* SessionOptionsSetWriteRecords(RungSessionOptions* options, int32_t write) noexcept;
RungStatus* SessionOptionsSetSetting(RungSessionOptions* options, const char* name, const char* value) noexcept;
RungStatus* SessionOptionsSetProgress(RungSessionOptions* options, RungProgressCallback callback, void* context) noexcept;
RungStatus* SessionOptionsSetPrint(RungSessionOptions* options, RungPrintCallback callback, void* context) noexcept;
void ReleaseSessionOptions(RungSessionOptions* options) noexcept;
RungStatus* SessionOpen(const RungProgram* program, const RungSessionOptions* options, RungSession** out) noexcept;
RungStatus* SessionBackend(const RungSession* session, const char** out) noexcept;
void ReleaseSession(RungSession* session) noexcept;
RungStatus* CreateRunOptions(RungRunOptions** out) noexcept;
RungStatus* RunOptionsAddDataDir(RungRunOptions* options, const char* dir) noexcept;
RungStatus* RunOptionsSetBaseDir(RungRunOptions* options, const char* dir) noexcept;
RungStatus* RunOptionsCancel(RungRunOptions* options) noexcept;
void ReleaseRunOptions(RungRunOptions* options) noexcept;
RungStatus* SessionRun(RungSession* session, const char* entry, uint64_t input_count, const char* const* input_names,
                       const RungTensor* const* inputs, const RungRunOptions* options, RungRunResult** out) noexcept;
RungStatus* RunResultOutputCount(const RungRunResult* result, uint64_t* out) noexcept;
RungStatus* RunResultOutput(const RungRunResult* result, uint64_t index, const char** name, RungTensor** out) noexcept;
RungStatus* RunResultOutputByName(const RungRunResult* result, const char* name, RungTensor** out) noexcept;
RungStatus* RunResultRecordId(const RungRunResult* result, const char** out) noexcept;
RungStatus* RunResultRecordJson(const RungRunResult* result, const char** out) noexcept;
RungStatus* RunResultWarningsJson(const RungRunResult* result, const char** out) noexcept;
RungStatus* RunResultInputStats(const RungRunResult* result, uint64_t* borrowed, uint64_t* copied,
                                uint64_t* bytes_copied) noexcept;
void ReleaseRunResult(RungRunResult* result) noexcept;

// tensor.cpp
RungStatus* TensorCreateBorrowed(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                                 const void* data, RungReleaseCallback release, void* context, RungTensor** out) noexcept;
RungStatus* TensorCreateCopy(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                             const void* data, RungTensor** out) noexcept;
RungStatus* TensorDType(const RungTensor* tensor, RungDType* out) noexcept;
RungStatus* TensorNDim(const RungTensor* tensor, int32_t* out) noexcept;
RungStatus* TensorShape(const RungTensor* tensor, const int64_t** out) noexcept;
RungStatus* TensorData(const RungTensor* tensor, const void** out) noexcept;
RungStatus* TensorByteSize(const RungTensor* tensor, uint64_t* out) noexcept;
RungStatus* TensorHash(const RungTensor* tensor, const char** out) noexcept;
RungStatus* TensorIsBorrowed(const RungTensor* tensor, int32_t* out) noexcept;
RungStatus* TensorToDLPack(const RungTensor* tensor, RungDLManagedTensorVersioned** out) noexcept;
RungStatus* TensorFromDLPack(RungDLManagedTensorVersioned* managed, RungCopyPolicy copy, RungTensor** out) noexcept;
RungStatus* TensorToDLPackLegacy(const RungTensor* tensor, RungDLManagedTensor** out) noexcept;
RungStatus* TensorFromDLPackLegacy(RungDLManagedTensor* managed, RungCopyPolicy copy, RungTensor** out) noexcept;
void ReleaseTensor(RungTensor* tensor) noexcept;
RungStatus* DTypeName(RungDType dtype, const char** out) noexcept;

}  // namespace rung::capi
