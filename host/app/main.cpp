// rapportd: the Rapport server process.
//
//   rapportd [--config FILE]            serve (migrations are applied first)
//   rapportd [--config FILE] migrate    apply migrations and exit
//   rapportd --help                     options and every configuration key
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

#include "app/Server.h"
#include "app/Settings.h"
#include "log/Log.h"

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
    bool migrateOnly = !args.empty() && args.front() == "migrate";
    if (!args.empty() && !migrateOnly) {
      std::cerr << "rapportd: unknown command '" << args.front() << "' (see --help)\n";
      return Application::EXIT_USAGE;
    }
    try {
      rapport::host::Settings settings = rapport::host::Settings::load(configFile(), environ);
      rapport::host::log::setLevel(rapport::host::log::parseLevel(settings.get("log.level")));
      if (printConfig_) {
        for (const auto& [key, value] : settings.effective())
          std::cout << key << " = " << value << "\n";
        return Application::EXIT_OK;
      }
      for (const auto& name : settings.unknownEnvironment()) {
        rapport::host::log::warn("unknown configuration variable ignored", {{"name", name}});
      }
      return serve(settings, migrateOnly);
    } catch (const std::exception& e) {
      rapport::host::log::error("cannot start", {{"error", e.what()}});
      return Application::EXIT_CONFIG;
    }
  }

 private:
  int serve(const rapport::host::Settings& settings, bool migrateOnly) {
    std::string exeDir = Poco::Path(commandPath()).makeAbsolute().parent().toString();
    rapport::host::Server server(settings, exeDir);
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
    help.setUsage("[OPTIONS] [migrate]");
    help.setHeader("Rapport: a multi-tenant CRM HTTP API server.");
    help.format(std::cout);
    std::cout << "\nConfiguration keys (file, or environment RAPPORT_<KEY>):\n";
    for (const auto& info : rapport::host::Settings::known()) {
      std::cout << "  " << info.key << " = " << info.defaultValue << "\n      " << info.meaning
                << "  [" << rapport::host::environmentName(info.key) << "]\n";
    }
  }

  bool helpRequested_ = false;
  bool printConfig_ = false;
  std::string configFile_;
};

}  // namespace

POCO_SERVER_MAIN(RapportDaemon)
