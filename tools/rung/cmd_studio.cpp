// `rung studio`: serves the built studio app (docs/studio.md) on 127.0.0.1, with the
// cross-origin isolation headers the engine's threads need and the MIME types its module
// scripts and .wasm need. Static files only for now: it runs nothing on the host.
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "command.h"
#include "studio_files.h"

#ifndef RUNG_STUDIO_APP_DIR
#error "RUNG_STUDIO_APP_DIR (where `make studio` writes the app) must be defined by the build"
#endif

namespace rung::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  int port = 5178;
  std::string host = "127.0.0.1";
  std::string app;
  bool open = false;
};

int stop_pipe[2] = {-1, -1};  // written by the signal handler, read by the stopping thread

bool loopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

Diagnostics find_app(const std::string& given, fs::path& root) {
  fs::path dir = given.empty() ? fs::path(RUNG_STUDIO_APP_DIR) : fs::path(given);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "index.html", ec))
    return Diagnostics::error(
        "C0030", "no built studio app at " + dir.string() + " (no index.html)",
        {given.empty() ? "build it with `make studio` (npm ci, then the app into BUILD/studio/dist), or pass --app DIR"
                       : "pass the folder the studio's build wrote (it holds index.html), or run `make studio`"});
  root = fs::canonical(dir, ec);
  if (ec) return Diagnostics::error("C0001", "cannot read " + dir.string() + ": " + ec.message());
  return {};
}

void serve_file(const fs::path& root, const httplib::Request& req, httplib::Response& res) {
  auto found = studio::resolve(root, req.path);
  res.status = found.status;
  if (found.status != 200) {
    res.set_content(found.status == 400 ? "bad path\n" : "not found\n", "text/plain; charset=utf-8");
    return;
  }
  std::ifstream in(found.file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    res.status = 500;
    res.set_content("cannot read the file\n", "text/plain; charset=utf-8");
    return;
  }
  res.set_content(std::move(bytes), studio::content_type(found.file).c_str());
}

int run(const Options& opt, const GlobalOptions& global) {
  Diagnostics warnings;
  if (!loopback(opt.host))
    warnings.append(Diagnostics::warning("C0032", "serving on " + opt.host + ", not only this machine's loopback",
                                         {"anyone who can reach this address can open the studio"}));
  fs::path root;
  if (auto d = find_app(opt.app, root); !d.empty()) return report(d, global);

  // SIGINT/SIGTERM write a byte to a pipe (all a handler may safely do); one thread waits on
  // it and stops the server, which then returns from listen and ends the command cleanly.
  if (pipe(stop_pipe) != 0) return report(Diagnostics::error("C0031", "cannot create the pipe that stops the server"), global);
  struct sigaction on_stop {};
  on_stop.sa_handler = [](int) { [[maybe_unused]] auto n = write(stop_pipe[1], "s", 1); };
  sigemptyset(&on_stop.sa_mask);
  sigaction(SIGINT, &on_stop, nullptr);
  sigaction(SIGTERM, &on_stop, nullptr);

  httplib::Server server;
  // httplib's default also sets SO_REUSEPORT, which lets a second server share a busy port.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_default_headers({{"Cross-Origin-Opener-Policy", "same-origin"},
                              {"Cross-Origin-Embedder-Policy", "require-corp"},
                              {"Cross-Origin-Resource-Policy", "same-origin"},
                              {"X-Content-Type-Options", "nosniff"},
                              {"Cache-Control", "no-store"}});
  server.Get(".*", [&root](const httplib::Request& req, httplib::Response& res) { serve_file(root, req, res); });

  int port = opt.port;
  bool bound = port == 0 ? (port = server.bind_to_any_port(opt.host)) > 0 : server.bind_to_port(opt.host, port);
  if (!bound)
    return report(Diagnostics::error("C0031", "cannot listen on " + opt.host + ":" + std::to_string(opt.port),
                                     {"the port is in use or the address is not this machine's; choose another with --port N (0 picks a free one)"}),
                  global);
  if (!warnings.empty()) report(warnings, global);

  std::string host = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  std::printf("rung studio: serving http://%s:%d/ from %s (Ctrl-C stops)\n", host.c_str(), port, root.c_str());
  std::fflush(stdout);
  if (opt.open) {
    std::string cmd = "xdg-open '" + url + "' >/dev/null 2>&1 &";
    if (std::system("command -v xdg-open >/dev/null 2>&1") != 0 || std::system(cmd.c_str()) != 0)
      report(Diagnostics::warning("C0033", "could not open a browser (xdg-open failed)", {"open " + url + " yourself"}), global);
  }

  std::atomic<bool> stopping{false};
  std::thread stopper([&server, &stopping] {
    char byte = 0;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    stopping = true;
    server.stop();
  });
  server.listen_after_bind();
  bool by_signal = stopping;
  // listen returned by itself (not through a signal): wake the stopper so it can be joined.
  if (!by_signal) {
    [[maybe_unused]] auto n = write(stop_pipe[1], "x", 1);
  }
  stopper.join();
  if (!by_signal)
    return report(Diagnostics::error("C0031", "the server stopped listening on " + url + " by itself"), global);
  std::printf("rung studio: stopped\n");
  return kExitOk;
}

RUNG_COMMAND("studio", "Serve the studio (the workflow editor in the browser) on 127.0.0.1",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto opt = std::make_shared<Options>();
               sub.add_option("--port", opt->port, "port to listen on (0: a free one; default 5178)")->check(CLI::Range(0, 65535));
               sub.add_option("--host", opt->host, "address to listen on (default 127.0.0.1; another one is warned about)");
               sub.add_option("--app", opt->app, "the built app's folder (default: the build tree's studio/dist, made by `make studio`)");
               sub.add_flag("--open", opt->open, "open the URL in a browser (xdg-open)");
               return [opt, &global] { return run(*opt, global); };
             });

}  // namespace
}  // namespace rung::cli
