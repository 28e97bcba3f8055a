// The CUDA benches stop at the first failure and say which step and diagnostic it was: a
// benchmark that carried on after a failed op would time garbage.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/diagnostic.h"

namespace rung::bench {

[[noreturn]] inline void die(const DiagnosticSink& d, const std::string& what) {
  std::fprintf(stderr, "FAILED %s: %s %s\n", what.c_str(), d.all().empty() ? "" : d.all()[0].code.c_str(),
               d.all().empty() ? "" : d.all()[0].message.c_str());
  std::exit(1);
}

}  // namespace rung::bench
