# wasm32 build: Highway's headers from the host (Debian ships no wasm libhwy); the few symbols
# the headers declare and rung uses are defined in src/backends/cpu/wasm/hwy_shim.cpp.
include(${CMAKE_CURRENT_LIST_DIR}/host_headers.cmake)
rung_wasm_host_headers(hwy::hwy hwy)
