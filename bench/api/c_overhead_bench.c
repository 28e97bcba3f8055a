/* The C ABI's cost per run (issue 18, bench/RESULTS.md): a tiny cached program (x + y over
 * f32[4], borrowed inputs, records off, receipts ignored) run through rung_get_api()'s table,
 * median over rounds of `iterations` calls, in microseconds per call. The kernel floor to
 * subtract is api_overhead_bench's `kernel (run_region)` line, measured in the same session.
 *
 *   build/bench/api/c_overhead_bench [iterations] */
#define _POSIX_C_SOURCE 199309L
#include <rung.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* kTiny =
    "module tiny;\n\ntier debug;\ntolerance exact;\n\nexport fn main(x: f32[4], y: f32[4]) -> f32[4] {\n    x + y\n}\n";

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void check(const RungApi* api, RungStatus* s) {
  if (!s) return;
  fprintf(stderr, "%s\n", api->StatusMessage(s));
  exit(1);
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 20000;
  const RungApi* api = rung_get_api(RUNG_API_VERSION);
  if (!api) return 1;
  RungModule* m;
  RungProgram* p;
  RungSessionOptions* so;
  RungSession* s;
  check(api, api->ModuleLoadBytes("tiny.rung", kTiny, strlen(kTiny), RUNG_SOURCE_RUNG, &m));
  check(api, api->ProgramCompile(m, NULL, &p));
  check(api, api->CreateSessionOptions(&so));
  check(api, api->SessionOptionsSetBackend(so, "cpu"));
  check(api, api->SessionOptionsSetReceipts(so, RUNG_RECEIPTS_IGNORE));
  check(api, api->SessionOptionsSetWriteRecords(so, 0));
  check(api, api->SessionOptionsSetHome(so, "/tmp/rung-bench-store"));
  check(api, api->SessionOpen(p, so, &s));
  float x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
  int64_t shape[1] = {4};
  RungTensor *tx, *ty;
  check(api, api->TensorCreateBorrowed(RUNG_F32, 1, shape, NULL, x, NULL, NULL, &tx));
  check(api, api->TensorCreateBorrowed(RUNG_F32, 1, shape, NULL, y, NULL, NULL, &ty));
  const char* names[2] = {"x", "y"};
  const RungTensor* inputs[2] = {tx, ty};
  double per[9];
  for (int r = 0; r < 9; ++r) {
    double t0 = now_us();
    for (int i = 0; i < iters; ++i) {
      RungRunResult* res;
      check(api, api->SessionRun(s, "main", 2, names, inputs, NULL, &res));
      api->ReleaseRunResult(res);
    }
    per[r] = (now_us() - t0) / iters;
  }
  qsort(per, 9, sizeof per[0], cmp);
  printf("C ABI SessionRun      %8.2f us/call\n", per[4]);
  api->ReleaseTensor(tx);
  api->ReleaseTensor(ty);
  api->ReleaseSession(s);
  api->ReleaseSessionOptions(so);
  api->ReleaseProgram(p);
  api->ReleaseModule(m);
  return 0;
}
