// External tensor data (TensorProto.data_location = EXTERNAL): files below the model's folder
// only. Checked before any file is opened: `location` is relative UTF-8 with no NUL, no root,
// no empty, `.` or `..` component (I0008). The file is then opened component by component
// with openat and O_NOFOLLOW, so no symlink leads out, and must be a regular file (not a FIFO
// or a device: I0008); `offset + length` must lie inside it and `length` equal the tensor's
// byte size (I0009). Each file is opened once per import.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace rung::onnx_import {

class ExternalFiles {
 public:
  explicit ExternalFiles(std::string model_dir) : dir_(std::move(model_dir)) {}
  ~ExternalFiles();
  ExternalFiles(const ExternalFiles&) = delete;
  ExternalFiles& operator=(const ExternalFiles&) = delete;

  // The `bytes` bytes the entries (location, offset, length) name; `place` names the tensor.
  std::optional<std::vector<std::uint8_t>> read(const std::vector<std::pair<std::string, std::string>>& entries,
                                                std::uint64_t bytes, const std::string& place, DiagnosticSink& diags);

 private:
  struct File {
    int fd = -1;
    std::uint64_t size = 0;
  };
  std::optional<File> open(const std::string& location, const std::string& place, DiagnosticSink& diags);

  std::string dir_;
  std::map<std::string, File> open_;
};

// Why `location` is refused, or empty when it is acceptable (exposed for tests).
std::string location_problem(const std::string& location);

}  // namespace rung::onnx_import
