// When each API key was last used (api_keys.last_used_at), written at most
// once a minute per key and never on the request's path (decisions §15):
// authentication records the use in memory (record(), a few map operations
// under one of 16 shard locks), and a job writes what is pending (take()).
//
// Threading: every member is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rapport::host::accounts::apikeys {

class KeyUsage {
 public:
  // `everyMicros`: the least time between two writes of one key.
  explicit KeyUsage(std::int64_t everyMicros) : every_(everyMicros) {}

  // Notes a use of key `id` at `now`; true when it is to be written (the
  // first use this process saw, or the last one queued `every` ago).
  bool record(const std::string& id, std::int64_t now);
  // The uses to write, each (key id, when), taken: the next take() has only newer ones.
  std::vector<std::pair<std::string, std::int64_t>> take();

  std::int64_t every() const { return every_; }

 private:
  static constexpr std::size_t kShards = 16;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::int64_t> queuedAt;  // key id -> last use queued
    std::vector<std::pair<std::string, std::int64_t>> pending;
  };

  std::int64_t every_;
  std::array<Shard, kShards> shards_;
};

}  // namespace rapport::host::accounts::apikeys
