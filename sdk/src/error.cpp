// rapport::Error: the API's error statuses and their generic messages.
#include "rapport/error.h"

#include <algorithm>

namespace rapport {

Error::Error(int status, std::string message, FieldErrors errors)
    : std::runtime_error(std::move(message)), status_(status), errors_(std::move(errors)) {}

std::string Error::genericMessage(int status) {
  switch (status) {
    case 400:
      return "Malformed request.";
    case 401:
      return "Not authenticated.";
    case 403:
      return "No permission.";
    case 404:
      return "Record not found.";
    case 405:
      return "Method not allowed.";
    case 409:
      return "Duplicate value.";
    case 410:
      return "Gone.";
    case 411:
      return "Length required.";
    case 413:
      return "Payload too large.";
    case 415:
      return "Unsupported media type.";
    case 422:
      return "Invalid data.";
    case 429:
      return "Too many requests.";
    case 500:
      return "Internal error.";
    case 503:
      return "Service unavailable.";
    default:
      return "Error.";
  }
}

Error Error::badRequest(std::string message) {
  return Error(400, std::move(message));
}
Error Error::unauthorized(std::string message) {
  return Error(401, std::move(message));
}
Error Error::forbidden(std::string message) {
  return Error(403, std::move(message));
}
Error Error::notFound(std::string message) {
  return Error(404, std::move(message));
}
Error Error::conflict(std::string message) {
  return Error(409, std::move(message));
}
Error Error::gone(std::string message) {
  return Error(410, std::move(message));
}

// The envelope's message repeats the first field message (fields are
// ordered by name), so a client showing only `message` still says something useful.
Error Error::validation(FieldErrors errors, std::string message) {
  if (message.empty()) {
    for (const auto& [field, messages] : errors) {
      if (!messages.empty()) {
        message = messages.front();
        break;
      }
    }
  }
  if (message.empty()) message = genericMessage(422);
  return Error(422, std::move(message), std::move(errors));
}

Error Error::invalidField(const std::string& field, std::string message) {
  return validation(FieldErrors{{field, {message}}}, message);
}

Error Error::tooManyRequests(long retryAfterSeconds, std::string message) {
  Error error(429, std::move(message));
  error.withHeader("Retry-After", std::to_string(std::max(1L, retryAfterSeconds)));
  return error;
}

}  // namespace rapport
