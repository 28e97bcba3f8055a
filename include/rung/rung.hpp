// The public C++ API of rung (docs/api-cpp.md): load, compile, open a session, run.
#pragma once

#include "rung/diagnostics.h"
#include "rung/dtype.h"
#include "rung/environment.h"
#include "rung/graph.h"
#include "rung/module.h"
#include "rung/program.h"
#include "rung/session.h"
#include "rung/tensor.h"
// The tool verbs (what the CLI's other subcommands call).
#include "rung/build.h"
#include "rung/conform.h"
#include "rung/eval.h"
#include "rung/inspect.h"
#include "rung/plan.h"
#include "rung/registry.h"
#include "rung/wasm.h"
