// The API's one response envelope, written by one writer (rapport::Json::dump):
//   success: {"message": m, "data": d, "meta": m}   (data and meta when given)
//   error:   {"message": m, "errors": {...}}         (errors on 422 only)
#pragma once

#include <string>

#include "rapport/error.h"
#include "rapport/http.h"

namespace rapport::host {

// Any Response a handler returns, whatever its status: a handler's own 403
// may carry data (login with two-factor, decisions §4).
std::string renderResponse(const rapport::Response& response);

std::string renderError(const rapport::Error& error);

// {"message": m}
std::string renderMessage(const std::string& message);

}  // namespace rapport::host
