#include "backends/webgpu/wgsl/tree.h"

#include <cstdint>

namespace rung::webgpu {

std::string tree_code(const std::string& n, const std::string& t, const std::string& op, const std::string& id) {
  std::string s;
  s += "// Canonical tree `" + n + "`: op(a, b) = " + op + ", identity " + id + ".\n";
  s += "var<private> " + n + "_l1: array<" + t + ", 32>;  // lanes of the current chunk\n";
  s += "var<private> " + n + "_l2: array<" + t + ", 32>;  // lanes over chunk results\n";
  s += "var<private> " + n + "_n: u32;      // values in the current chunk\n";
  s += "var<private> " + n + "_c: u32;      // finished chunks\n";
  s += "var<private> " + n + "_first: " + t + ";  // the first chunk's result\n";
  s += "fn " + n + "_op(a: " + t + ", b: " + t + ") -> " + t + " { return " + op + "; }\n";
  s += "fn " + n + "_fold1() -> " + t + " {\n"
       "  for (var s = 16u; s >= 1u; s = s / 2u) {\n"
       "    for (var l = 0u; l < s; l = l + 1u) { " + n + "_l1[l] = " + n + "_op(" + n + "_l1[l], " + n + "_l1[l + s]); }\n"
       "  }\n"
       "  return " + n + "_l1[0];\n}\n";
  s += "fn " + n + "_reset() {\n"
       "  for (var l = 0u; l < 32u; l = l + 1u) { " + n + "_l1[l] = " + id + "; " + n + "_l2[l] = " + id + "; }\n"
       "  " + n + "_n = 0u;\n  " + n + "_c = 0u;\n}\n";
  s += "fn " + n + "_end_chunk() {\n"
       "  let r = " + n + "_fold1();\n"
       "  if (" + n + "_c == 0u) { " + n + "_first = r; }\n"
       "  " + n + "_l2[" + n + "_c % 32u] = " + n + "_op(" + n + "_l2[" + n + "_c % 32u], r);\n"
       "  " + n + "_c = " + n + "_c + 1u;\n"
       "  for (var l = 0u; l < 32u; l = l + 1u) { " + n + "_l1[l] = " + id + "; }\n"
       "  " + n + "_n = 0u;\n}\n";
  s += "fn " + n + "_push(v: " + t + ") {\n"
       "  " + n + "_l1[" + n + "_n % 32u] = " + n + "_op(" + n + "_l1[" + n + "_n % 32u], v);\n"
       "  " + n + "_n = " + n + "_n + 1u;\n"
       "  if (" + n + "_n == 4096u) { " + n + "_end_chunk(); }\n}\n";
  s += "fn " + n + "_result() -> " + t + " {\n"
       "  if (" + n + "_c == 0u) { return " + n + "_fold1(); }  // one chunk (or none): one level\n"
       "  if (" + n + "_n > 0u) { " + n + "_end_chunk(); }\n"
       "  if (" + n + "_c == 1u) { return " + n + "_first; }\n"
       "  for (var s = 16u; s >= 1u; s = s / 2u) {\n"
       "    for (var l = 0u; l < s; l = l + 1u) { " + n + "_l2[l] = " + n + "_op(" + n + "_l2[l], " + n + "_l2[l + s]); }\n"
       "  }\n"
       "  return " + n + "_l2[0];\n}\n";
  return s;
}

}  // namespace rung::webgpu
