/* An out-of-tree C11 program on the installed C ABI (<rung.h>, pkg-config rung): loads a
 * workflow, runs it on fixed inputs (one copied, one borrowed) and prints the program
 * fingerprint and each output's hash, as `rung run` prints them.
 *   c_consumer WORKFLOW.json HOME */
#include <stdio.h>

#include <rung.h>

static const RungApi* api;

/* Prints a failed call's status and releases it; 1 when there was one. */
static int failed(RungStatus* status) {
  if (!status) return 0;
  fprintf(stderr, "rung: %s\n", api->StatusMessage(status));
  api->ReleaseStatus(status);
  return 1;
}

static void count_release(void* context) { ++*(int*)context; }

int main(int argc, char** argv) {
  RungModule* module = NULL;
  RungProgram* program = NULL;
  RungSessionOptions* options = NULL;
  RungSession* session = NULL;
  RungTensor* inputs[2] = {NULL, NULL};
  RungRunResult* result = NULL;
  const char* fingerprint = NULL;
  float x[24], w[32];
  const int64_t xs[] = {3, 8}, ws[] = {8, 4};
  const char* names[] = {"x", "w"};
  uint64_t count = 0, i;
  int released = 0, rc = 1;

  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: c_consumer WORKFLOW.json HOME [BACKEND]\n");
    return 2;
  }
  api = rung_get_api(RUNG_API_VERSION);
  if (!api) {
    fprintf(stderr, "librung is older than this program (C ABI %d)\n", RUNG_API_VERSION);
    return 1;
  }
  for (i = 0; i < 24; ++i) x[i] = 0.5f * (float)i;
  for (i = 0; i < 32; ++i) w[i] = (float)((int)i - 16) / 8.0f;

  if (failed(api->ModuleLoadFile(argv[1], &module))) goto done;
  if (failed(api->ProgramCompile(module, NULL, &program))) goto done; /* the workflow declares its tier */
  if (failed(api->CreateSessionOptions(&options))) goto done;
  if (failed(api->SessionOptionsSetHome(options, argv[2]))) goto done;
  if (argc == 4 && failed(api->SessionOptionsSetBackend(options, argv[3]))) goto done; /* the GPU check: cuda */
  if (failed(api->SessionOpen(program, options, &session))) goto done;
  if (failed(api->TensorCreateCopy(RUNG_F32, 2, xs, NULL, x, &inputs[0]))) goto done;
  if (failed(api->TensorCreateBorrowed(RUNG_F32, 2, ws, NULL, w, count_release, &released, &inputs[1]))) goto done;
  if (failed(api->SessionRun(session, NULL, 2, names, (const RungTensor* const*)inputs, NULL, &result))) goto done;

  if (failed(api->ProgramFingerprint(program, &fingerprint))) goto done;
  printf("fingerprint %s\n", fingerprint);
  if (failed(api->RunResultOutputCount(result, &count))) goto done;
  for (i = 0; i < count; ++i) {
    RungTensor* out = NULL;
    const char *name = NULL, *hash = NULL;
    if (failed(api->RunResultOutput(result, i, &name, &out))) goto done;
    if (failed(api->TensorHash(out, &hash))) {
      api->ReleaseTensor(out);
      goto done;
    }
    printf("%s %s\n", name, hash);
    api->ReleaseTensor(out);
  }
  rc = 0;

done:
  api->ReleaseRunResult(result);
  api->ReleaseTensor(inputs[0]);
  api->ReleaseTensor(inputs[1]);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
  api->ReleaseProgram(program);
  api->ReleaseModule(module);
  if (rc == 0 && released != 1) {
    fprintf(stderr, "the borrowed input was released %d times, not once\n", released);
    rc = 1;
  }
  return rc;
}
