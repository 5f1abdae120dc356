// rapportd: the Rapport server process.
//
//   rapportd [--config FILE]            serve (migrations are applied first)
//   rapportd [--config FILE] migrate    apply migrations and exit
//   rapportd [--config FILE] routes     list every route (method, path, module), exit
//   rapportd [--config FILE] openapi    print the OpenAPI document, exit
//   rapportd [--config FILE] --help     options and every configuration key, the
//                                       enabled modules' keys under each module
//   rapportd --print-config             effective configuration, secrets masked
//
// SIGTERM or SIGINT: stop accepting, finish requests in flight, stop the
// workers, exit 0.
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Util/HelpFormatter.h>
#include <Poco/Util/Option.h>
#include <Poco/Util/OptionSet.h>
#include <Poco/Util/ServerApplication.h>

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "app/ConfigurationListing.h"
#include "app/ModuleConfiguration.h"
#include "app/Server.h"
#include "app/Settings.h"
#include "log/Log.h"
#include "openapi/OpenApiDocument.h"

extern char** environ;

namespace {

using Poco::Util::Application;
using Poco::Util::Option;
using Poco::Util::OptionSet;

class RapportDaemon : public Poco::Util::ServerApplication {
 protected:
  void defineOptions(OptionSet& options) override {
    ServerApplication::defineOptions(options);
    options.addOption(
        Option("help", "h", "print options and configuration keys, then exit")
            .required(false)
            .repeatable(false)
            .callback(Poco::Util::OptionCallback<RapportDaemon>(this, &RapportDaemon::onHelp)));
    options.addOption(
        Option("config", "c", "configuration file (properties: key = value)")
            .required(false)
            .repeatable(false)
            .argument("FILE")
            .callback(Poco::Util::OptionCallback<RapportDaemon>(this, &RapportDaemon::onConfig)));
    options.addOption(Option("print-config", "", "print the effective configuration, then exit")
                          .required(false)
                          .repeatable(false)
                          .callback(Poco::Util::OptionCallback<RapportDaemon>(
                              this, &RapportDaemon::onPrintConfig)));
  }

  int main(const std::vector<std::string>& args) override {
    // A peer that closes while we write (an HTTP client, a webhook receiver)
    // must cost an EPIPE error on that socket, never the process.
    std::signal(SIGPIPE, SIG_IGN);
    if (helpRequested_) {
      printHelp();
      return Application::EXIT_OK;
    }
    const std::string command = args.empty() ? "" : args.front();
    if (!command.empty() && command != "migrate" && command != "routes" && command != "openapi") {
      std::cerr << "rapportd: unknown command '" << args.front() << "' (see --help)\n";
      return Application::EXIT_USAGE;
    }
    try {
      rapport::host::Settings settings = rapport::host::Settings::load(configFile(), environ);
      rapport::host::log::setLevel(rapport::host::log::parseLevel(settings.get("log.level")));
      rapport::host::log::setFormat(rapport::host::log::parseFormat(settings.get("log.format")));
      if (printConfig_) {
        rapport::host::printEffectiveConfiguration(
            std::cout, settings, rapport::host::summarizeEnabledModules(settings, executableDir()));
        return Application::EXIT_OK;
      }
      if (command == "routes" || command == "openapi") return describe(settings, command);
      return serve(settings, command == "migrate");
    } catch (const std::exception& e) {
      rapport::host::log::error("cannot start", {{"error", e.what()}});
      return Application::EXIT_CONFIG;
    }
  }

 private:
  // `routes`: one line per route ("GET /v1/crm/contacts contacts"), from the
  // router itself; `openapi`: the document GET /v1/openapi.json serves.
  int describe(const rapport::host::Settings& settings, const std::string& command) {
    rapport::host::Server server(settings, executableDir());
    if (command == "openapi") {
      std::cout << server.document().get().dump() << "\n";
      return Application::EXIT_OK;
    }
    for (const auto* route : server.router().routes()) {
      std::cout << route->method << " " << route->pattern << " " << route->owner << "\n";
    }
    return Application::EXIT_OK;
  }

  int serve(const rapport::host::Settings& settings, bool migrateOnly) {
    rapport::host::Server server(settings, executableDir());
    // Only now are the modules' keys known (declared when they loaded).
    warnUnknownConfiguration(server.settings());
    auto applied = server.migrate();
    if (migrateOnly) {
      std::cout << "migrations applied: " << applied.size() << "\n";
      return Application::EXIT_OK;
    }
    server.start();
    rapport::host::log::info("listening", {{"address", settings.get("server.host")},
                                           {"port", std::to_string(server.port())},
                                           {"url", "http://" + settings.get("server.host") + ":" +
                                                       std::to_string(server.port()) + "/v1"}});
    waitForTerminationRequest();
    rapport::host::log::info("shutting down");
    server.stop();
    rapport::host::log::info("stopped");
    return Application::EXIT_OK;
  }

  std::string executableDir() const {
    return Poco::Path(commandPath()).makeAbsolute().parent().toString();
  }

  // The unknown-key policy (Settings.h): a warning each, start-up goes on.
  static void warnUnknownConfiguration(const rapport::host::Settings& settings) {
    for (const auto& name : settings.unknownEnvironment()) {
      rapport::host::log::warn("unknown configuration variable ignored", {{"name", name}});
    }
    for (const auto& key : settings.unknownKeys()) {
      rapport::host::log::warn("unknown configuration key ignored", {{"key", key}});
    }
  }

  std::string configFile() const {
    if (!configFile_.empty()) return configFile_;
    if (const char* env = std::getenv("RAPPORT_CONFIG"); env && *env) return env;
    return Poco::File("config/rapport.properties").exists() ? "config/rapport.properties" : "";
  }

  void onHelp(const std::string&, const std::string&) {
    helpRequested_ = true;
    stopOptionsProcessing();
  }
  void onConfig(const std::string&, const std::string& value) { configFile_ = value; }
  void onPrintConfig(const std::string&, const std::string&) { printConfig_ = true; }

  void printHelp() {
    Poco::Util::HelpFormatter help(options());
    help.setCommand(commandName());
    help.setUsage("[OPTIONS] [migrate | routes | openapi]");
    help.setHeader("Rapport: a multi-tenant CRM HTTP API server.");
    help.format(std::cout);
    // The enabled modules' keys: from the configuration this command line
    // names (or the defaults), when it can be read.
    std::vector<rapport::host::ModuleSummary> modules;
    std::string unreadable;
    try {
      modules = rapport::host::summarizeEnabledModules(
          rapport::host::Settings::load(configFile(), environ), executableDir());
    } catch (const std::exception& e) {
      unreadable = e.what();
    }
    rapport::host::printKeyReference(std::cout, modules);
    if (!unreadable.empty()) {
      std::cout << "\nModules not listed: " << unreadable << "\n";
    }
  }

  bool helpRequested_ = false;
  bool printConfig_ = false;
  std::string configFile_;
};

}  // namespace

POCO_SERVER_MAIN(RapportDaemon)
