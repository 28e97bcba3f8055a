// An out-of-tree C++ program on the installed C++ API (<rung/rung.hpp>, rung::rung): loads a
// workflow, runs it on fixed inputs (one copied, one borrowed) and prints the program
// fingerprint and each output's hash, as `rung run` prints them.
//   cpp_consumer WORKFLOW.json HOME
#include <cstdio>
#include <vector>

#include <rung/rung.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cpp_consumer WORKFLOW.json HOME\n");
    return 2;
  }
  auto fail = [](const rung::Diagnostics& d) {
    std::fprintf(stderr, "%s", d.text().c_str());
    return 1;
  };
  auto module = rung::Module::load(rung::Source::file(argv[1]));
  if (!module) return fail(module.diagnostics());
  auto program = rung::Program::compile(*module, {});  // the workflow declares its tier
  if (!program) return fail(program.diagnostics());

  rung::SessionOptions options;
  options.environment.home = argv[2];
  auto session = rung::Session::open(*program, options);
  if (!session) return fail(session.diagnostics());

  std::vector<float> x(24), w(32);
  for (int i = 0; i < 24; ++i) x[i] = 0.5f * static_cast<float>(i);
  for (int i = 0; i < 32; ++i) w[i] = static_cast<float>(i - 16) / 8.0f;
  const std::int64_t xs[] = {3, 8}, ws[] = {8, 4};
  auto xt = rung::Tensor::copy({rung::DType::f32, xs, {}, x.data(), {}});
  int released = 0;
  auto wt = rung::Tensor::borrow({rung::DType::f32, ws, {}, w.data(), {}}, [&released] { ++released; });
  if (!xt) return fail(xt.diagnostics());
  if (!wt) return fail(wt.diagnostics());

  {
    auto result = session->run({}, {{"x", *xt, {}}, {"w", *wt, {}}});
    if (!result) return fail(result.diagnostics());
    std::printf("fingerprint %s\n", program->fingerprint().c_str());
    for (const rung::Output& o : result->outputs) std::printf("%s %s\n", o.name.c_str(), o.tensor.hash().c_str());
  }
  wt = rung::Tensor();  // the last reference to the borrowed bytes
  if (released != 1) {
    std::fprintf(stderr, "the borrowed input was released %d times, not once\n", released);
    return 1;
  }
  return 0;
}
