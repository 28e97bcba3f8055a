// What `rung studio` may serve: a request path mapped to a file inside the app folder, or
// refused. Kept apart from the server so that the refusal rules (no `..`, no absolute or
// empty segments, nothing that resolves outside the folder through a link) read in one place.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace rung::cli::studio {

struct Resolved {
  int status = 200;             // 200, or 400 (a path that tries to leave the folder), 404
  std::filesystem::path file;   // when 200: a regular file inside the app folder
};

// `url_path` is the request's path, already percent-decoded (so `%2e%2e` arrives as `..`);
// `root` is the app folder, canonical. "/" is "/index.html".
Resolved resolve(const std::filesystem::path& root, std::string_view url_path);

// The Content-Type the browser needs: `.wasm` application/wasm (streaming compilation
// refuses anything else), `.js`/`.mjs` text/javascript (module scripts likewise).
std::string content_type(const std::filesystem::path& file);

}  // namespace rung::cli::studio
