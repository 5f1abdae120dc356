// The probe fixture through the loader: what it registers during setup(), and
// that a handler made in the module runs in the host.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <stdexcept>

#include "loader/ModuleLoader.h"

using rapport::host::LoadedModule;
using rapport::host::ModuleLoader;

namespace {

// setup() only keeps the host; nothing here may be called.
class UnusedHost final : public rapport::Host {
 public:
  rapport::Database& db() override { throw std::logic_error("db() during setup"); }
  const rapport::RecordDirectory& records() override {
    throw std::logic_error("records() during setup");
  }
  const rapport::Config& config() override { throw std::logic_error("config() during setup"); }
  rapport::Logger& log() override { throw std::logic_error("log() during setup"); }
  bool moduleEnabled(const std::string&) const override { return false; }
  const rapport::EventCatalogue& events() const override {
    throw std::logic_error("events() during setup");
  }
  const rapport::SecretBox& secrets() const override {
    throw std::logic_error("secrets() during setup");
  }
  const rapport::EventLog& eventLog() const override {
    throw std::logic_error("eventLog() during setup");
  }
  void notifyOwners(const std::string&, const std::string&, const std::string&) override {
    throw std::logic_error("notifyOwners() during setup");
  }
};

class RecordingRegistry final : public rapport::Registry {
 public:
  struct Route {
    rapport::Handler handler;
    rapport::RouteOptions options;
  };
  std::map<std::string, Route> routes;  // "GET /probe/ping"
  std::vector<rapport::Migration> migrations;
  std::map<std::string, std::string> eventTypes;
  std::vector<std::string> recordTypes;

  void route(const std::string& method, const std::string& path, rapport::Handler handler,
             rapport::RouteOptions options) override {
    routes[method + " " + path] = {std::move(handler), std::move(options)};
  }
  void migration(rapport::Migration m) override { migrations.push_back(std::move(m)); }
  void eventType(const std::string& type, const std::string& description) override {
    eventTypes[type] = description;
  }
  void recordType(const std::string& type, rapport::RecordType) override {
    recordTypes.push_back(type);
  }
  void guardDeletion(const std::string&, rapport::RecordDeletionGuard) override {}
  void onRecordDeleted(const std::string&, rapport::RecordDeleted) override {}
  void augment(const std::string&, rapport::RecordAugment) override {}
  void onEvent(rapport::EventListener) override {}
  rapport::JobHandle job(rapport::Job) override { return nullptr; }
  void describe(const std::string&, const std::string&, rapport::RouteDoc) override {}
  void schema(const std::string&, rapport::Json) override {}
  void batch(const std::string&, rapport::BatchSpec) override {}
  void metrics(std::vector<rapport::MetricFamily>, rapport::MetricCollector) override {}
};

}  // namespace

class ProbeModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProbeModuleTest);
  CPPUNIT_TEST(testRegistrations);
  CPPUNIT_TEST(testHandlersRunInTheHost);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    modules_ = ModuleLoader({RAPPORT_TEST_MODULES_DIR}).load({"probe"});
    modules_.front().module->setup(host_, registry_);
  }

  void tearDown() override {
    // Handlers made in the module go before the module and its library.
    registry_.routes.clear();
    modules_.clear();
  }

  void testRegistrations() {
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), registry_.migrations.size());
    const rapport::Migration& m = registry_.migrations.front();
    CPPUNIT_ASSERT_EQUAL(std::string("0001_probe_notes"), m.id);
    CPPUNIT_ASSERT(m.sqlite.find("CREATE TABLE probe_notes") != std::string::npos);
    CPPUNIT_ASSERT(m.postgresql.find("CREATE TABLE probe_notes") != std::string::npos);

    CPPUNIT_ASSERT_EQUAL(std::size_t(1), registry_.eventTypes.count("probe.note.created"));
    CPPUNIT_ASSERT(!registry_.eventTypes["probe.note.created"].empty());
    CPPUNIT_ASSERT(registry_.recordTypes == std::vector<std::string>{"probe_note"});

    CPPUNIT_ASSERT_EQUAL(std::size_t(5), registry_.routes.size());
    CPPUNIT_ASSERT(registry_.routes.at("GET /probe/ping").options.access ==
                   rapport::Access::Public);
    CPPUNIT_ASSERT(registry_.routes.at("POST /probe/notes").options.access ==
                   rapport::Access::Authenticated);
    CPPUNIT_ASSERT(registry_.routes.count("GET /probe/notes/{id}") == 1);
    const auto& admin = registry_.routes.at("GET /probe/admin").options;
    CPPUNIT_ASSERT(admin.access == rapport::Access::Authenticated);
    CPPUNIT_ASSERT(admin.roles ==
                   (std::vector<rapport::Role>{rapport::Role::Owner, rapport::Role::Admin}));
  }

  void testHandlersRunInTheHost() {
    rapport::Request request;
    request.method = "GET";
    const rapport::Response pong = registry_.routes.at("GET /probe/ping").handler(request);
    CPPUNIT_ASSERT_EQUAL(200, pong.status);
    CPPUNIT_ASSERT(pong.data.has_value());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"pong":true})"), pong.data->dump());

    // An exception thrown in the module is caught here by its standard type.
    try {
      registry_.routes.at("GET /probe/boom").handler(request);
      CPPUNIT_FAIL("boom did not throw");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("secret detail"), std::string(e.what()));
    }
  }

 private:
  std::vector<LoadedModule> modules_;  // first: outlives what the module registered
  UnusedHost host_;
  RecordingRegistry registry_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProbeModuleTest);
