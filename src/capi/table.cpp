// The table rung_get_api hands out, and the C ABI's two exported symbols. Designated
// initializers must follow the struct's order, so this file does not compile when it and
// include/rung.h disagree; tests/capi holds both to src/capi/api_entries.txt.
#include "capi/entries.h"
#include "capi/objects.h"
#include "rung.h"

namespace rung::capi {
namespace {

const RungApi kApi = {
    .StatusCode = &capi::StatusCode,
    .StatusMessage = &capi::StatusMessage,
    .StatusDiagnosticCount = &capi::StatusDiagnosticCount,
    .StatusDiagnostic = &capi::StatusDiagnostic,
    .StatusDiagnosticsJson = &capi::StatusDiagnosticsJson,
    .ReleaseStatus = &capi::ReleaseStatus,
    .ModuleLoadFile = &capi::ModuleLoadFile,
    .ModuleLoadBytes = &capi::ModuleLoadBytes,
    .ModuleName = &capi::ModuleName,
    .ReleaseModule = &capi::ReleaseModule,
    .CreateCompileOptions = &capi::CreateCompileOptions,
    .CompileOptionsSetTier = &capi::CompileOptionsSetTier,
    .CompileOptionsSetTolerance = &capi::CompileOptionsSetTolerance,
    .ReleaseCompileOptions = &capi::ReleaseCompileOptions,
    .ProgramCompile = &capi::ProgramCompile,
    .ProgramFingerprint = &capi::ProgramFingerprint,
    .ProgramTier = &capi::ProgramTier,
    .ProgramTolerance = &capi::ProgramTolerance,
    .ProgramWarningsJson = &capi::ProgramWarningsJson,
    .ProgramEntryCount = &capi::ProgramEntryCount,
    .ProgramEntryName = &capi::ProgramEntryName,
    .ProgramEntryParamCount = &capi::ProgramEntryParamCount,
    .ProgramEntryParam = &capi::ProgramEntryParam,
    .ProgramEntryResultCount = &capi::ProgramEntryResultCount,
    .ProgramEntryResult = &capi::ProgramEntryResult,
    .ReleaseProgram = &capi::ReleaseProgram,
    .CreateSessionOptions = &capi::CreateSessionOptions,
    .SessionOptionsSetBackend = &capi::SessionOptionsSetBackend,
    .SessionOptionsSetReceipts = &capi::SessionOptionsSetReceipts,
    .SessionOptionsSetHome = &capi::SessionOptionsSetHome,
    .SessionOptionsSetWriteRecords = &capi::SessionOptionsSetWriteRecords,
    .SessionOptionsSetSetting = &capi::SessionOptionsSetSetting,
    .SessionOptionsSetProgress = &capi::SessionOptionsSetProgress,
    .SessionOptionsSetPrint = &capi::SessionOptionsSetPrint,
    .ReleaseSessionOptions = &capi::ReleaseSessionOptions,
    .SessionOpen = &capi::SessionOpen,
    .SessionBackend = &capi::SessionBackend,
    .ReleaseSession = &capi::ReleaseSession,
    .CreateRunOptions = &capi::CreateRunOptions,
    .RunOptionsAddDataDir = &capi::RunOptionsAddDataDir,
    .RunOptionsSetBaseDir = &capi::RunOptionsSetBaseDir,
    .RunOptionsCancel = &capi::RunOptionsCancel,
    .ReleaseRunOptions = &capi::ReleaseRunOptions,
    .TensorCreateBorrowed = &capi::TensorCreateBorrowed,
    .TensorCreateCopy = &capi::TensorCreateCopy,
    .TensorDType = &capi::TensorDType,
    .TensorNDim = &capi::TensorNDim,
    .TensorShape = &capi::TensorShape,
    .TensorData = &capi::TensorData,
    .TensorByteSize = &capi::TensorByteSize,
    .TensorHash = &capi::TensorHash,
    .TensorIsBorrowed = &capi::TensorIsBorrowed,
    .TensorToDLPack = &capi::TensorToDLPack,
    .TensorFromDLPack = &capi::TensorFromDLPack,
    .TensorToDLPackLegacy = &capi::TensorToDLPackLegacy,
    .TensorFromDLPackLegacy = &capi::TensorFromDLPackLegacy,
    .ReleaseTensor = &capi::ReleaseTensor,
    .SessionRun = &capi::SessionRun,
    .RunResultOutputCount = &capi::RunResultOutputCount,
    .RunResultOutput = &capi::RunResultOutput,
    .RunResultOutputByName = &capi::RunResultOutputByName,
    .RunResultRecordId = &capi::RunResultRecordId,
    .RunResultRecordJson = &capi::RunResultRecordJson,
    .RunResultWarningsJson = &capi::RunResultWarningsJson,
    .RunResultInputStats = &capi::RunResultInputStats,
    .ReleaseRunResult = &capi::ReleaseRunResult,
    .DTypeName = &capi::DTypeName,
};

}  // namespace
}  // namespace rung::capi

#define RUNG_STRINGIFY2(x) #x
#define RUNG_STRINGIFY(x) RUNG_STRINGIFY2(x)

extern "C" {

const RungApi* rung_get_api(uint32_t version) {
  if (version == 0 || version > static_cast<uint32_t>(RUNG_API_VERSION)) return nullptr;
  // The registries (ops, backends) are built here once, not at a first run on some thread.
  static const bool ready = [] {
    try {
      (void)rung::backends();
    } catch (...) {
      // a registry that cannot be built shows as a status at the first session instead
    }
    return true;
  }();
  (void)ready;
  return &rung::capi::kApi;
}

const char* rung_version_string(void) {
  return "rung " RUNG_VERSION " (C ABI " RUNG_STRINGIFY(RUNG_API_VERSION) ")";
}

}  // extern "C"
