// The `_rung` extension: the low-level half of `import rung` (python/rung/ is the other).
#include "common.h"

PYBIND11_MODULE(_rung, m) {
  m.doc() = "rung's public C++ API for Python; use the `rung` package, not this module";
  rung::py_binding::bind_tensor(m);
  rung::py_binding::bind_program(m);
  rung::py_binding::bind_graph(m);
}
