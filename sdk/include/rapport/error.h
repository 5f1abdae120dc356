// rapport::Error: the one error type. Throw it anywhere in a handler; the host
// catches it once per request and renders the API's envelope:
//   {"message": "...", "errors": {"field": ["..."]}}   (errors on 422 only)
//
// The message is what the client reads. Never put internals in it: anything
// that is not a rapport::Error becomes a generic 500 and goes to the log.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "rapport/export.h"

namespace rapport {

// Field name (dotted for nested fields: "related_to.type", "tags.0") to messages.
using FieldErrors = std::map<std::string, std::vector<std::string>>;

class RAPPORT_VISIBLE Error : public std::runtime_error {
 public:
  RAPPORT_SDK_API Error(int status, std::string message, FieldErrors errors = {});

  int status() const { return status_; }
  const FieldErrors& errors() const { return errors_; }
  // Extra response headers (for example Retry-After on 429, Allow on 405).
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  Error& withHeader(std::string name, std::string value) {
    headers_.emplace_back(std::move(name), std::move(value));
    return *this;
  }

  // The generic message the API uses for a status ("Record not found." ...).
  RAPPORT_SDK_API static std::string genericMessage(int status);

  RAPPORT_SDK_API static Error badRequest(std::string message = genericMessage(400));
  RAPPORT_SDK_API static Error unauthorized(std::string message = genericMessage(401));
  RAPPORT_SDK_API static Error forbidden(std::string message = genericMessage(403));
  RAPPORT_SDK_API static Error notFound(std::string message = genericMessage(404));
  RAPPORT_SDK_API static Error conflict(std::string message = genericMessage(409));
  RAPPORT_SDK_API static Error gone(std::string message = genericMessage(410));
  // 422 with one message per field; `message` defaults to the first field message.
  RAPPORT_SDK_API static Error validation(FieldErrors errors, std::string message = "");
  // 422 for a single field.
  RAPPORT_SDK_API static Error invalidField(const std::string& field, std::string message);
  // 429 with Retry-After (whole seconds, at least 1).
  RAPPORT_SDK_API static Error tooManyRequests(long retryAfterSeconds,
                                               std::string message = genericMessage(429));

 private:
  int status_;
  FieldErrors errors_;
  std::vector<std::pair<std::string, std::string>> headers_;
};

}  // namespace rapport
