# wasm32 build: nlohmann_json's headers from the host (scripts/wasm32-emscripten.cmake says why).
include(${CMAKE_CURRENT_LIST_DIR}/host_headers.cmake)
rung_wasm_host_headers(nlohmann_json::nlohmann_json nlohmann)
