#include "support/ServerProcess.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/TestEnv.h"

extern char** environ;

namespace rapport::test {
namespace {

void writeConfig(const std::string& path, const ServerProcess::Settings& settings) {
  std::ofstream out(path);
  for (const auto& [key, value] : settings) out << key << " = " << value << "\n";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// fork + exec rapportd in `dir`, standard output and error into `logPath`.
int spawn(const std::vector<std::string>& args, const std::string& dir, const std::string& logPath,
          const ServerProcess::Environment& environment = {}) {
  std::vector<char*> argv;
  std::string exe = ServerProcess::rapportdPath();
  argv.push_back(exe.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The child's environment is built before fork: only async-signal-safe
  // calls may run between fork and exec (tests spawn from several threads).
  std::vector<std::string> variables;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    if (!environment.count(name)) variables.push_back(std::move(entry));
  }
  for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    int fd = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execve(exe.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// Renames an existing log to <path>.1 (or the next free number), so a server
// restarted in the same directory starts a new log that holds only its lines.
void keepPreviousLog(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return;
  for (int n = 1;; ++n) {
    const std::string kept = path + "." + std::to_string(n);
    if (::access(kept.c_str(), F_OK) != 0) {
      ::rename(path.c_str(), kept.c_str());
      return;
    }
  }
}

int waitExit(int pid, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return -1;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      throw std::runtime_error("rapportd did not exit in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::string ServerProcess::rapportdPath() {
  return buildDir() + "/rapportd";
}

ServerProcess::ServerProcess(Settings settings, std::vector<std::string> args,
                             Environment environment, std::string workDir)
    : settings_(std::move(settings)) {
  workDir_ = workDir.empty() ? tempDirectory("server") : std::move(workDir);
  keepPreviousLog(workDir_ + "/rapportd.log");
  databaseUrl_ =
      settings_.count("database.url") ? settings_["database.url"] : freshDatabaseUrl("e2e");
  settings_["database.url"] = databaseUrl_;
  settings_.emplace("server.port", "0");
  settings_.emplace("server.host", "127.0.0.1");
  settings_.emplace("log.level", "info");
  // Every answer the e2e tests see is checked against its route's
  // description in the API document (docs/openapi.md).
  settings_.emplace("api.check_responses", "true");
  std::string config = workDir_ + "/rapport.properties";
  writeConfig(config, settings_);
  args.insert(args.begin(), {"--config", config});
  pid_ = spawn(args, workDir_, workDir_ + "/rapportd.log", environment);

  // Poll the log for the "listening" line; the server prints its real port
  // there (log.format text or json).
  static const std::regex listening(
      R"re(msg=listening .*port=(\d+)|"msg":"listening".*"port":"(\d+)")re");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    std::string text = log();
    if (std::regex_search(text, m, listening)) {
      port_ = std::stoi(m[1].matched ? m[1].str() : m[2].str());
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("rapportd exited during start-up:\n" + text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop();
  throw std::runtime_error("rapportd did not start listening:\n" + log());
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    try {
      stop();
    } catch (...) {
    }
  }
}

std::string ServerProcess::log() const {
  return readFile(workDir_ + "/rapportd.log");
}

int ServerProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  return waitForExit(std::chrono::seconds(30));
}

void ServerProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waitForExit(std::chrono::seconds(30));
}

void ServerProcess::sendSignal(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ServerProcess::waitForExit(std::chrono::seconds limit) {
  if (pid_ <= 0) return -1;
  const int pid = pid_;
  pid_ = -1;
  return waitExit(pid, limit);
}

int ServerProcess::runToCompletion(const Settings& settings, const std::vector<std::string>& args,
                                   std::string& output, const std::string& databaseUrl,
                                   const Environment& environment) {
  std::string dir = tempDirectory("run");
  Settings s = settings;
  s.emplace("database.url", databaseUrl.empty() ? freshDatabaseUrl("run") : databaseUrl);
  s.emplace("server.port", "0");
  std::string config = dir + "/rapport.properties";
  writeConfig(config, s);
  std::vector<std::string> all = {"--config", config};
  all.insert(all.end(), args.begin(), args.end());
  int pid = spawn(all, dir, dir + "/output.log", environment);
  int code = waitExit(pid, std::chrono::seconds(60));
  output = readFile(dir + "/output.log");
  return code;
}

int ServerProcess::runBare(const std::vector<std::string>& args, const std::string& workDir,
                           std::string& output, const Environment& environment) {
  const std::string logPath = tempDirectory("bare") + "/output.log";
  int pid = spawn(args, workDir, logPath, environment);
  int code = waitExit(pid, std::chrono::seconds(60));
  output = readFile(logPath);
  return code;
}

}  // namespace rapport::test
