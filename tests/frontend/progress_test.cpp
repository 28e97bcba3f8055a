// Loop progress goes through ExecOptions::progress (runtime/progress.h): a for loop reports
// its step of a known total, a while loop its iteration count with the total unknown (-1),
// each ends with a finished report; without a callback nothing is reported.
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/frontend.h"
#include "runtime/interpreter.h"
#include "support/reference_compute.h"

namespace rung {

TEST(LoopProgress, ForAndWhileLoopsReportThroughTheCallback) {
  SourceMap sources;
  DiagnosticSink diags;
  auto p = frontend::compile_file(std::string(RUNG_SOURCE_DIR) + "/tests/frontend/programs/loops.rung", sources, diags);
  ASSERT_TRUE(p) << (diags.empty() ? "" : diags.all().front().message);
  std::vector<runtime::Progress> seen;
  std::ostringstream printed;
  test_support::ReferenceCompute ref;
  runtime::ExecOptions o = ref.options();
  o.out = &printed;
  o.progress = [&](const runtime::Progress& r) { seen.push_back(r); };
  o.progress_interval_s = 0;  // every iteration
  auto out = runtime::execute(*p, "main", {}, sources, diags, o);
  ASSERT_TRUE(out) << (diags.empty() ? "" : diags.all().front().message);
  EXPECT_EQ(printed.str(), "n 6 k 6\n");
  std::vector<runtime::Progress> for_loop, while_loop;
  for (const auto& r : seen) (r.phase.find("while") != std::string::npos ? while_loop : for_loop).push_back(r);
  ASSERT_EQ(for_loop.size(), 5u);  // 4 steps, then done
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(for_loop[i].done, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(for_loop[i].total, 4);
    EXPECT_FALSE(for_loop[i].finished);
  }
  EXPECT_TRUE(for_loop[4].finished);
  EXPECT_EQ(for_loop[4].phase, "[main] for loop");
  ASSERT_EQ(while_loop.size(), 7u);  // 6 iterations, then done
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(while_loop[i].done, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(while_loop[i].total, -1) << "a while loop's total is unknown";
    EXPECT_GE(while_loop[i].elapsed_s, 0.0);
  }
  EXPECT_TRUE(while_loop[6].finished);
  EXPECT_EQ(while_loop[6].done, 6);

  // The default interval (a second): these short loops stay silent.
  seen.clear();
  o.progress_interval_s = 1.0;
  ASSERT_TRUE(runtime::execute(*p, "main", {}, sources, diags, o));
  EXPECT_TRUE(seen.empty());
}

}  // namespace rung
