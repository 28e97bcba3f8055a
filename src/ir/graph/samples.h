// Small, fixed sample graphs: the demo's input (`rung sample`) and the tests' fixtures.
// They are built through the ordinary builder, so they also exercise it.
#pragma once

#include "ir/graph/graph.h"

namespace rung {

// A two-layer perceptron: export `forward(x: f32[B,784], w1, b1, w2, b2) -> f32[B,10]`
// and export `predict(x, ...)`, which calls forward and takes argmax over classes.
Graph sample_mlp();

}  // namespace rung
