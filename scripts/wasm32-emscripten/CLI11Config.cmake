# wasm32 build: CLI11's headers from the host (scripts/wasm32-emscripten.cmake says why).
include(${CMAKE_CURRENT_LIST_DIR}/host_headers.cmake)
rung_wasm_host_headers(CLI11::CLI11 CLI)
