# The two commands of the README:
#   make demo   installs what is missing, builds, runs the main job on the CPU
#   make test   installs what is missing, builds, runs every test through CTest
BUILD     ?= build
BUILDTYPE ?= RelWithDebInfo
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all setup configure build demo test fuzz-keg clean

all: build

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILDTYPE) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# libFuzzer on the .keg reader (clang): make fuzz-keg FUZZ_SECONDS=60
FUZZ_SECONDS ?= 60
fuzz-keg: setup
	@cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DRUNG_FUZZ=ON >/dev/null
	@cmake --build build-fuzz --target keg_reader_fuzz -j $(JOBS)
	@mkdir -p build-fuzz/corpus-keg && cp -n tests/keg/corpus/*.keg build-fuzz/corpus-keg/ 2>/dev/null || true
	build-fuzz/tests/fuzz/keg_reader_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	  build-fuzz/corpus-keg

clean:
	rm -rf $(BUILD) build-fuzz

# libFuzzer on the syntax layer (clang): make fuzz-syntax FUZZ_SECONDS=60
.PHONY: fuzz-syntax
fuzz-syntax: setup
	@cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DRUNG_FUZZ=ON >/dev/null
	@cmake --build build-fuzz --target syntax_fuzz -j $(JOBS)
	@mkdir -p build-fuzz/corpus-syntax && cp -n examples/*.rung tests/syntax/cases/*.rung build-fuzz/corpus-syntax/ 2>/dev/null || true
	build-fuzz/tests/fuzz/syntax_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 build-fuzz/corpus-syntax

# Cross-architecture check (scripts/test-arm64.sh, docs/conformance.md): an aarch64 build under
# qemu-user must give the x86-64 build's bits on the conformance suite and debug-tier examples.
# It builds only `rung` (x86-64 and a lean aarch64 build); not part of `make test` (too slow for CI).
.PHONY: test-arm64
test-arm64: configure
	@scripts/test-arm64.sh $(BUILD) build-arm64
