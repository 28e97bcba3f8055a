# CMake toolchain for the wasm32 build of the rung engine (scripts/test-wasm.sh, docs: ../shared
# design WASM.md): Debian 12's emscripten 3.1.6 (em++, bundled libc++ 13), run under node 20.
# Single-threaded by default (no -pthread: the cpu backend's pool is pinned at one thread);
# -DRUNG_WASM_THREADS=ON builds with pthreads over SharedArrayBuffer (node; browsers only when
# cross-origin isolated), where RUNG_CPU_THREADS chooses the pool's size as natively.
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)

# The numeric contract holds on wasm too (-ffp-contract=off comes from CMakeLists.txt);
# -msimd128 gives Highway its WASM target (else EMU128); exceptions are caught (.keg reader,
# ExecPlan codec, workflow JSON, CLI). Never -mrelaxed-simd (its madd may fuse or not).
set(rung_wasm_threads "")
if(RUNG_WASM_THREADS)
  set(rung_wasm_threads "-pthread")
endif()
set(CMAKE_C_FLAGS_INIT "-msimd128 -fexceptions ${rung_wasm_threads}")
set(CMAKE_CXX_FLAGS_INIT "-msimd128 -fexceptions ${rung_wasm_threads}")
# The CLI under node: the host file system as is (NODERAWFS), the host's environment
# (node_env.js), memory that grows up to 2 GiB (emscripten's default is 16 MiB fixed), a
# process exit code. With threads, a pool of 4 workers started with the module (a thread
# started later would wait for the event loop, which a synchronous CLI never returns to).
if(RUNG_WASM_THREADS)
  string(APPEND rung_wasm_threads " -sPTHREAD_POOL_SIZE=4")
endif()
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "${rung_wasm_threads} -fexceptions -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sEXIT_RUNTIME=1 -sTOTAL_STACK=8MB --pre-js ${CMAKE_CURRENT_LIST_DIR}/wasm32-emscripten/node_env.js")

# Header-only dependencies (CLI11, nlohmann_json, Highway's headers) are the host's Debian
# packages, but their CMake targets name /usr/include, which would put glibc's headers before
# emscripten's: scripts/wasm32-emscripten/ holds package files that name only those folders.
set(CLI11_DIR ${CMAKE_CURRENT_LIST_DIR}/wasm32-emscripten CACHE PATH "")
set(nlohmann_json_DIR ${CMAKE_CURRENT_LIST_DIR}/wasm32-emscripten CACHE PATH "")
set(hwy_DIR ${CMAKE_CURRENT_LIST_DIR}/wasm32-emscripten CACHE PATH "")

# -O2 as measured in the design brief (CMake's Release is -O3); NDEBUG as the native RelWithDebInfo.
set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "")
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "")

# librung takes rung_api and rung_capi whole (src/capi/CMakeLists.txt); CMake 3.25 knows the
# feature for GNU-like linkers on Linux only; wasm-ld has the same flags.
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE "LINKER:--whole-archive" "<LINK_ITEM>" "LINKER:--no-whole-archive")
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE_SUPPORTED TRUE)
