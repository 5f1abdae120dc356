// A private nginx in front of several rapportd for e2e.instances: its own
// prefix, configuration, pid file, temporary folders and logs in a temporary
// folder (the system's nginx and its files are never touched), listening on
// 127.0.0.1 and a free port, with the upstream set-up of docs/deploy.md
// (round robin, keep-alive to the upstreams, X-Forwarded-For appended).
// As root its workers stay root ("user root;"): they only read what the
// test wrote.
//
// Starts in the constructor (waits until it accepts connections, or throws
// with its error log); SIGTERM and a wait in the destructor.
#pragma once

#include <string>
#include <vector>

namespace rapport::e2e {

class Nginx {
 public:
  // `upstreams`: the ports of the rapportd behind it, on 127.0.0.1.
  explicit Nginx(const std::vector<int>& upstreams);
  ~Nginx();
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  int port() const { return port_; }
  std::string errorLog() const;

 private:
  bool start(int port, const std::vector<int>& upstreams);
  void stop();

  std::string prefix_;
  int pid_ = -1;
  int port_ = 0;
};

}  // namespace rapport::e2e
