#include "HarnessState.h"

#include <stdexcept>

#include "ModuleClosure.h"
#include "log/Log.h"

namespace rapport::testing {
namespace {

std::vector<std::filesystem::path> moduleDirs(const HarnessOptions& options) {
  return options.moduleDirs.empty() ? moduleDirsFromEnvironment() : options.moduleDirs;
}

std::string serverUrl(const HarnessOptions& options) {
  return options.databaseUrl.empty() ? databaseUrlFromEnvironment() : options.databaseUrl;
}

Json parsedBody(const std::string& text) {
  if (text.empty()) return Json();
  try {
    return Json::parse(text);
  } catch (const JsonParseError&) {
    return Json();  // not JSON: the text is in Reply::text
  }
}

}  // namespace

HarnessState::HarnessState(const HarnessOptions& options)
    : database_(serverUrl(options), folder_.path()), clientAddress_(options.clientAddress) {
  const std::vector<std::filesystem::path> dirs = moduleDirs(options);
  settings_ = harnessSettings({.folder = folder_.path(),
                               .databaseUrl = database_.url(),
                               .moduleDirs = dirs,
                               .modules = withDependencies(options.modules, dirs),
                               .overrides = options.settings});
  host::log::setLevel(host::log::parseLevel(settings_.get("log.level")));
  // The executable folder only locates modules when modules.dir is unset;
  // the harness always sets it.
  server_ = std::make_unique<host::Server>(settings_, folder_.path().string());
  server_->migrate();
  server_->startWithoutListening();
}

HarnessState::~HarnessState() {
  if (server_) server_->stop();
  server_.reset();
}

Reply HarnessState::send(host::RawRequest request) const {
  request.clientAddress = clientAddress_;
  const host::RawResponse raw = server_->handle(request);
  Reply reply;
  reply.status = raw.status;
  for (const auto& [name, value] : raw.headers) reply.headers.emplace(name, value);
  reply.text = raw.body;
  reply.body = parsedBody(raw.body);
  return reply;
}

}  // namespace rapport::testing
