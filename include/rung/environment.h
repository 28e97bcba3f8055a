// What a surface knows about the process it runs in, handed to the library as a value: the
// library itself reads no environment variables. The CLI and the language bindings build one
// with Environment::from_process(); a sandboxed worker builds its own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rung/export.h"

namespace rung {

struct Environment {
  // The store of receipts, run records and kernel caches: a folder.
  std::string home;
  // Folders where a program's relative data reads (read_csv) are looked up when the file is
  // not next to the program, after RunOptions::data_dirs.
  std::vector<std::string> data_path;
  // Backend settings by their variable names: RUNG_CPU_THREADS, RUNG_CPU_SIMD,
  // RUNG_CUDA_FUSION, RUNG_WEBGPU_LIBRARY, RUNG_WEBGPU_ADAPTER.
  std::map<std::string, std::string> settings;

  // home: $RUNG_HOME, else $HOME/.rung, else ./.rung; data_path: $RUNG_DATA_PATH
  // (':'-separated); settings: those of the variables above that are set.
  RUNG_API static Environment from_process();
};

}  // namespace rung
