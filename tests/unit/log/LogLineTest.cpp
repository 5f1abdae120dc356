// The log line in both formats (log.format): the text line as before, and
// the json line, one valid JSON object per line (parsed back with
// rapport::Json) with the same fields in the same order, whatever bytes the
// values hold: quotes, backslashes, newlines, control bytes, invalid UTF-8.
// And log.format's values: text, json, anything else refused by name.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

#include "log/Log.h"
#include "rapport/json.h"

using rapport::Json;
namespace log = rapport::host::log;

namespace {

constexpr const char* kTs = "2026-11-24T08:00:00.000001Z";

Json parseLine(const std::string& line) {
  CPPUNIT_ASSERT_MESSAGE(line, !line.empty() && line.back() == '\n');
  const std::string body = line.substr(0, line.size() - 1);
  CPPUNIT_ASSERT_MESSAGE(line, body.find('\n') == std::string::npos);  // one line
  return Json::parse(body);
}

}  // namespace

class LogLineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(LogLineTest);
  CPPUNIT_TEST(testTextLine);
  CPPUNIT_TEST(testJsonLineHasTheFieldsInOrder);
  CPPUNIT_TEST(testJsonEscapesQuotesNewlinesAndControlBytes);
  CPPUNIT_TEST(testJsonKeepsUtf8AndReplacesInvalidBytes);
  CPPUNIT_TEST(testFormatValues);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTextLine() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("ts=2026-11-24T08:00:00.000001Z level=warn msg=\"two words\" req=abc "
                    "path=/v1/x error=\"say \\\"no\\\"\\nthen=stop\"\n"),
        log::formatLine(log::Format::Text, kTs, log::Level::Warn, "two words",
                        {{"req", "abc"}, {"path", "/v1/x"}, {"error", "say \"no\"\nthen=stop"}}));
  }

  void testJsonLineHasTheFieldsInOrder() {
    const std::string line =
        log::formatLine(log::Format::Json, kTs, log::Level::Info, "request",
                        {{"req", "abc"}, {"route", "/v1/contacts/{id}"}, {"status", "200"}});
    CPPUNIT_ASSERT_EQUAL(std::string("{\"ts\":\"2026-11-24T08:00:00.000001Z\",\"level\":\"info\","
                                     "\"msg\":\"request\",\"req\":\"abc\",\"route\":\"/v1/"
                                     "contacts/{id}\",\"status\":\"200\"}\n"),
                         line);
    const Json parsed = parseLine(line);
    const auto& members = parsed.asObject();
    const std::vector<std::string> keys{"ts", "level", "msg", "req", "route", "status"};
    CPPUNIT_ASSERT_EQUAL(keys.size(), members.size());
    for (std::size_t i = 0; i < keys.size(); ++i) CPPUNIT_ASSERT_EQUAL(keys[i], members[i].first);
  }

  void testJsonEscapesQuotesNewlinesAndControlBytes() {
    const std::string nasty = std::string("a\"b\\c\nd\re\tf") + '\x01' + '\x1f' + "g" + '\0' + "h";
    const std::string line = log::formatLine(log::Format::Json, kTs, log::Level::Error,
                                             "line\nbreak", {{"error", nasty}});
    const Json parsed = parseLine(line);
    CPPUNIT_ASSERT_EQUAL(nasty, parsed["error"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("line\nbreak"), parsed["msg"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("error"), parsed["level"].asString());
    CPPUNIT_ASSERT_MESSAGE(line, line.find("\\u0001") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(line, line.find("\\u0000") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(line, line.find("a\\\"b\\\\c\\nd\\re\\tf") != std::string::npos);
  }

  void testJsonKeepsUtf8AndReplacesInvalidBytes() {
    const std::string line = log::formatLine(log::Format::Json, kTs, log::Level::Info, "m",
                                             {{"name", "Zoë"},
                                              {"raw",
                                               "x\xff"
                                               "y"}});
    const Json parsed = parseLine(line);
    CPPUNIT_ASSERT_EQUAL(std::string("Zoë"), parsed["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("x\xEF\xBF\xBDy"), parsed["raw"].asString());  // U+FFFD
  }

  void testFormatValues() {
    CPPUNIT_ASSERT(log::parseFormat("text") == log::Format::Text);
    CPPUNIT_ASSERT(log::parseFormat("json") == log::Format::Json);
    for (const char* bad : {"", "JSON", "logfmt", "json "}) {
      try {
        log::parseFormat(bad);
        CPPUNIT_FAIL(std::string("accepted '") + bad + "'");
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("log.format must be text or json (got '") + bad + "')",
                             std::string(e.what()));
      }
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(LogLineTest);
