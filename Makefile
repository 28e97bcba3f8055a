# The two commands of the README:
#   make demo   installs what is missing, builds, runs the main job on the CPU
#   make test   installs what is missing, builds, runs every test through CTest
BUILD     ?= build
BUILDTYPE ?= RelWithDebInfo
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all setup configure build demo test fuzz clean

all: build

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: build build-wasm
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-fuzz

# libFuzzer (clang) on one fuzz target of tests/fuzz/ (syntax, program, workflow, keg_reader,
# npy, csv, run_record, receipt, capi, onnx): make fuzz TARGET=npy FUZZ_SECONDS=60 (make fuzz-onnx: TARGET=onnx). It starts from the
# target's corpus; new inputs go to build-fuzz/corpus-TARGET, crashes and the log
# (fuzz-0.log) to build-fuzz/crashes-TARGET/ (copy each crash into tests/fuzz/corpus/TARGET/
# with its fix: `make test` replays them). It runs at low priority (nice 10, one job).
# Limits grow with the input: -timeout (per input) and -rss_limit_mb are set for the largest
# input -max_len allows; the replay in `make test` judges each input by a + b*size.
TARGET       ?= syntax
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 65536
fuzz: setup
	@cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRUNG_BACKEND_CUDA=OFF -DRUNG_BACKEND_WEBGPU=OFF -DRUNG_WERROR=OFF \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DRUNG_FUZZ=ON >/dev/null
	@cmake --build build-fuzz --target $(TARGET)_fuzz -j $(JOBS)
	@mkdir -p build-fuzz/corpus-$(TARGET) build-fuzz/crashes-$(TARGET)
	cd build-fuzz/crashes-$(TARGET) && nice -n 10 ../tests/fuzz/$(TARGET)_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
	  -timeout=$$(( 5 + $(FUZZ_MAX_LEN) / 8192 )) -rss_limit_mb=$$(( 2048 + $(FUZZ_MAX_LEN) * 2 / 1024 )) -jobs=1 \
	  -artifact_prefix=$(CURDIR)/build-fuzz/crashes-$(TARGET)/ $(CURDIR)/build-fuzz/corpus-$(TARGET) $(CURDIR)/tests/fuzz/corpus/$(TARGET)

.PHONY: fuzz-onnx
fuzz-onnx:
	@$(MAKE) fuzz TARGET=onnx

# Cross-architecture check (scripts/test-arm64.sh, docs/conformance.md): an aarch64 build under
# qemu-user must give the x86-64 build's bits on the conformance suite and debug-tier examples.
# It builds only `rung` (x86-64 and a lean aarch64 build); not part of `make test` (too slow for CI).
.PHONY: test-arm64
test-arm64: configure
	@scripts/test-arm64.sh $(BUILD) build-arm64

# The wasm32 engine (scripts/test-wasm.sh, issue 20): `rung` built with emscripten 3.1.6, run
# under node 20, must give the x86-64 build's conformance digests (reference and cpu) and
# example hashes. make test builds it and runs the check as ctest wasm.engine; make test-wasm
# builds both and runs it alone.
.PHONY: build-wasm test-wasm
build-wasm: setup
	@scripts/build-wasm.sh build-wasm $(JOBS)
test-wasm: configure
	@scripts/test-wasm.sh $(BUILD) build-wasm

# The JS face of the wasm engine (scripts/test-wasm-js.sh, docs/wasm-js.md): the ES module
# rung_engine built in build-wasm, the js/ package held to the native CLI under node and in
# Debian's chromium (playwright-core from npm, installed into build-wasm/js-test). Missing
# emcc, node or chromium is a loud SKIP (the script's 77, which make takes as no failure).
.PHONY: test-wasm-js
test-wasm-js: configure
	@scripts/test-wasm-js.sh $(BUILD) build-wasm || [ $$? = 77 ]

# The ONNX backend node tests (docs/onnx-suite.md): every test imported and run on rung's cpu
# backend in tier debug, its table (verdict, reason, max ulp) and the summary; the peer
# (onnxruntime-node) on the same tests beside it. ONNX_UPDATE=1 rewrites the expectations.
.PHONY: test-onnx
test-onnx: build
	@tests/onnx/node_suite_test.sh $(CURDIR) $(CURDIR)/$(BUILD) --table $(if $(ONNX_UPDATE),--update)
	@node tests/onnx/ort/run_node_tests.mjs $(BUILD)/onnx-node/node $(BUILD)/onnx-ort >/dev/null
	@/usr/bin/python3 tests/onnx/judge.py $(BUILD)/onnx-node/node $(BUILD)/onnx-rung --peer $(BUILD)/onnx-ort | tail -4

# The studio (studio/, docs/studio.md): npm ci when needed, the app built with the op
# catalogue from $(BUILD)'s rung, vitest (document model, command log, share links), then
# the browser test on Debian's chromium through playwright-core (screenshots in
# $(BUILD)/studio-test/). Not part of `make test` yet.
.PHONY: studio test-studio
# The app `rung studio` serves: $(BUILD)/studio/dist (scripts/build-studio.sh).
studio: build
	@scripts/build-studio.sh $(BUILD)
test-studio: build
	@scripts/test-studio.sh $(BUILD)
