#include "ratelimit/RedisPool.h"

#include <Poco/DigestEngine.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Redis/Error.h>
#include <Poco/Redis/Type.h>
#include <Poco/SHA1Engine.h>

#include "log/Log.h"

namespace rapport::host {
namespace {

using Poco::Redis::Array;
using Poco::Redis::RedisType;
using Poco::Redis::RedisTypeTraits;
using Poco::Redis::Type;

constexpr auto kWarningInterval = std::chrono::seconds(10);

std::int64_t ticksNow() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

std::int64_t ticksIn(std::chrono::steady_clock::duration d) {
  return ticksNow() + d.count();
}

Array command(std::initializer_list<std::string> words) {
  Array out;
  for (const auto& word : words) out << word;
  return out;
}

// The message of an error reply, or "" when `reply` is not one.
std::string errorOf(const RedisType::Ptr& reply) {
  if (reply->type() != RedisTypeTraits<Poco::Redis::Error>::TypeId) return "";
  return static_cast<const Type<Poco::Redis::Error>*>(reply.get())->value().getMessage();
}

}  // namespace

RedisScript::RedisScript(std::string text) : source(std::move(text)) {
  Poco::SHA1Engine engine;
  engine.update(source);
  sha1 = Poco::DigestEngine::digestToHex(engine.digest());
}

RedisPool::RedisPool(RedisUrl url, Options options) : url_(std::move(url)), options_(options) {}

RedisPool::~RedisPool() = default;

void RedisPool::fail(const std::string& reason) {
  const std::string message = "redis at " + url_.description + ": " + reason;
  // At 3 a.m. every request fails the same way: one line per 10 s says it.
  std::int64_t due = nextWarning_.load(std::memory_order_relaxed);
  if (ticksNow() >= due && nextWarning_.compare_exchange_strong(due, ticksIn(kWarningInterval))) {
    log::warn("redis unavailable", {{"error", message}});
  }
  throw RedisUnavailable(message);
}

RedisPool::Connection RedisPool::connect() {
  if (ticksNow() < connectAfter_.load(std::memory_order_relaxed)) {
    fail("not retried yet after a failed connect");
  }
  auto client = std::make_unique<Poco::Redis::Client>();
  try {
    const Poco::Timespan timeout(std::chrono::microseconds(options_.timeout).count());
    client->connect(Poco::Net::SocketAddress(url_.host, static_cast<Poco::UInt16>(url_.port)),
                    timeout);
    client->setReceiveTimeout(timeout);
    if (!url_.password.empty()) {
      const Array auth = url_.username.empty() ? command({"AUTH", url_.password})
                                               : command({"AUTH", url_.username, url_.password});
      if (const std::string error = errorOf(client->sendCommand(auth)); !error.empty()) {
        throw Poco::Exception("AUTH refused: " + error);
      }
    }
    if (url_.database != 0) {
      const std::string error =
          errorOf(client->sendCommand(command({"SELECT", std::to_string(url_.database)})));
      if (!error.empty()) throw Poco::Exception("SELECT refused: " + error);
    }
  } catch (const Poco::Exception& e) {
    connectAfter_.store(ticksIn(options_.backoff), std::memory_order_relaxed);
    fail("cannot connect: " + e.displayText());
  }
  return client;
}

RedisPool::Connection RedisPool::takeIdle() {
  std::lock_guard lock(mutex_);
  if (idle_.empty()) return nullptr;
  Connection connection = std::move(idle_.back());
  idle_.pop_back();
  return connection;
}

void RedisPool::giveBack(Connection connection) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(connection));
}

RedisType::Ptr RedisPool::run(const Array& request) {
  // An idle connection may have been closed by the server meanwhile (a
  // restart, its idle timeout): then once more on a new one.
  if (Connection idle = takeIdle()) {
    try {
      RedisType::Ptr reply = idle->sendCommand(request);
      giveBack(std::move(idle));
      return reply;
    } catch (const Poco::Exception&) {
      // Dropped with `idle`: a half-read reply would answer the next caller.
    }
  }
  Connection fresh = connect();
  RedisType::Ptr reply;
  try {
    reply = fresh->sendCommand(request);
  } catch (const Poco::Exception& e) {
    fail(e.displayText());
  }
  giveBack(std::move(fresh));
  return reply;
}

std::vector<std::int64_t> RedisPool::eval(const RedisScript& script, const std::string& key,
                                          const std::vector<std::string>& args) {
  Array request;
  request << "EVALSHA" << script.sha1 << "1" << key;
  for (const auto& arg : args) request << arg;
  RedisType::Ptr reply = run(request);
  std::string error = errorOf(reply);
  if (error.rfind("NOSCRIPT", 0) == 0) {
    // A fresh (or flushed) server: EVAL runs the script and caches it.
    Array load;
    load << "EVAL" << script.source << "1" << key;
    for (const auto& arg : args) load << arg;
    reply = run(load);
    error = errorOf(reply);
  }
  if (!error.empty()) fail("script failed: " + error);
  if (reply->type() != RedisTypeTraits<Array>::TypeId) fail("script answered no array");
  const Array& values = static_cast<const Type<Array>*>(reply.get())->value();
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  try {
    for (std::size_t i = 0; i < values.size(); ++i) out.push_back(values.get<Poco::Int64>(i));
  } catch (const Poco::Exception&) {
    fail("script answered something other than integers");
  }
  return out;
}

void RedisPool::ping() {
  const RedisType::Ptr reply = run(command({"PING"}));
  if (const std::string error = errorOf(reply); !error.empty()) fail(error);
}

}  // namespace rapport::host
