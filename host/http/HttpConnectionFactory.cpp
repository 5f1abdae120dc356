#include "http/HttpConnectionFactory.h"

#include <utility>

#include "http/HttpConnection.h"

namespace rapport::host {

HttpConnectionFactory::HttpConnectionFactory(const Pipeline& pipeline, std::size_t maxBodyBytes,
                                             Poco::Net::HTTPServerParams::Ptr params)
    : handler_(pipeline, maxBodyBytes), params_(std::move(params)) {}

Poco::Net::TCPServerConnection* HttpConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  return new HttpConnection(socket, *this);
}

void HttpConnectionFactory::stopAll() {
  // Holding the lock throughout keeps every connection in live_ from being
  // destroyed while it is stopped (detach waits).
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  // All first, so that no connection starts another request while an
  // earlier one is waited for.
  for (HttpConnection* connection : live_) connection->stopReading();
  for (HttpConnection* connection : live_) connection->closeAfterRequest();
}

void HttpConnectionFactory::attach(HttpConnection& connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) connection.stopReading();
  live_.insert(&connection);
}

void HttpConnectionFactory::detach(HttpConnection& connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.erase(&connection);
}

}  // namespace rapport::host
