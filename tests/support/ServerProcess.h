// Starts a real rapportd for end-to-end tests and stops it with SIGTERM.
//
//   ServerProcess server(ServerProcess::Settings{{"ratelimit.requests", "5"}});
//   HttpClient client(server.port());
//
// (Name the Settings type: a bare braced list such as ({{"a", "1"}}) is
// ambiguous for C++, which also reads it as a ServerProcess to copy.)
//
// Every server runs with api.check_responses=true (a 2xx answer that
// disagrees with its route's API description is a 500), and gets a fresh database
// (TestEnv::freshDatabaseUrl on the test's engine), port 0 (the kernel picks a free port; the
// server logs it), its own working directory, and a configuration file written from the settings.
// Its log (standard error) is kept in <workdir>/rapportd.log and printed when
// a start fails. stop() sends SIGTERM and returns the exit code.
//
// `environment` adds variables to rapportd's environment (to prove the
// RAPPORT_<KEY> overrides):
//   ServerProcess server({}, {}, ServerProcess::Environment{{"RAPPORT_RATELIMIT_REQUESTS", "3"}});
//
// A restart on the same database and working directory (the files the server
// keeps there, data/secret.key for example, survive): pass the database in
// the settings and the old server's workDir():
//   ServerProcess again(ServerProcess::Settings{{"database.url", first.databaseUrl()}}, {}, {},
//                       first.workDir());
// The previous log is kept as rapportd.log.1, .2, ... (log() reads the
// current one).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace rapport::test {

class ServerProcess {
 public:
  using Settings = std::map<std::string, std::string>;
  using Environment = std::map<std::string, std::string>;

  // Starts and waits until the server listens (or throws with its log).
  // `workDir`: an existing working directory to run in (empty: a new one).
  explicit ServerProcess(Settings settings = {}, std::vector<std::string> args = {},
                         Environment environment = {}, std::string workDir = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  const std::string& databaseUrl() const { return databaseUrl_; }
  const std::string& workDir() const { return workDir_; }
  std::string log() const;
  // SIGTERM, then waits for the exit (at most 30 s); returns the exit code.
  int stop();
  bool running() const { return pid_ > 0; }
  // Sends `signal` without waiting (for example SIGTERM while a request is
  // in flight); waitForExit() collects the exit code afterwards.
  void sendSignal(int signal);
  // Waits for the process to exit (SIGKILL and throw after `limit`); returns
  // the exit code, or 128 + the signal number when a signal ended it.
  int waitForExit(std::chrono::seconds limit = std::chrono::seconds(30));
  int pid() const { return pid_; }
  // SIGKILL (no clean shutdown: what a crash looks like) and waits for the
  // process to end.
  void kill();

  // Runs rapportd to completion with the given arguments and settings (for
  // `migrate`, refusals at start-up...). Returns the exit code; `output`
  // receives standard output and standard error.
  static int runToCompletion(const Settings& settings, const std::vector<std::string>& args,
                             std::string& output, const std::string& databaseUrl = "",
                             const Environment& environment = {});

  // Runs rapportd with exactly `args` (no --config is added) in `workDir`, for
  // the defaults: no arguments, config/rapport.properties, RAPPORT_CONFIG.
  static int runBare(const std::vector<std::string>& args, const std::string& workDir,
                     std::string& output, const Environment& environment = {});

  static std::string rapportdPath();

 private:
  Settings settings_;
  std::string workDir_;
  std::string databaseUrl_;
  int pid_ = -1;
  int port_ = 0;
};

}  // namespace rapport::test
