// The error envelope and the statuses of a request the router or the body
// reader refuses (decisions §1; API, Errors).
#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>

#include "e2e/http/HttpSuite.h"

using namespace rapport::e2e;

class EnvelopeTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EnvelopeTest);
  CPPUNIT_TEST(testUnknownPathIs404WithMessageOnly);
  CPPUNIT_TEST(testUnknownPathIs404EvenWithoutToken);
  CPPUNIT_TEST(testWrongMethodIs405WithAllow);
  CPPUNIT_TEST(testMalformedJsonIs400);
  CPPUNIT_TEST(testBodyThatIsNotAnObjectIs400);
  CPPUNIT_TEST(testInvalidUtf8Is400);
  CPPUNIT_TEST(testDeepNestingIs400);
  CPPUNIT_TEST(testUnknownAndReadOnlyFieldsAreIgnored);
  CPPUNIT_TEST(testPostWithoutLengthHasEmptyBody);
  CPPUNIT_TEST(testUnparsableRequestGetsTheEnvelope);
  CPPUNIT_TEST(testOversizedRequestLineOrHeaderGetsTheEnvelope);
  CPPUNIT_TEST(testBareLfIs400);
  CPPUNIT_TEST(testHttp11WithoutHostIs400);
  CPPUNIT_TEST(testBadContentLengthIs400);
  CPPUNIT_TEST(testBadChunkIs400);
  CPPUNIT_TEST(testChunkedBodyIsRead);
  CPPUNIT_TEST(testBodyOverOneMebibyteIs413);
  CPPUNIT_TEST(testChunkedBodyOverOneMebibyteIs413);
  CPPUNIT_TEST(testBodyOfExactlyOneMebibyteIsRead);
  CPPUNIT_TEST(testValidationNamesEveryMissingField);
  CPPUNIT_TEST(testErrorsOnlyOn422);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testUnknownPathIs404WithMessageOnly() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "notfound");
    for (const std::string path : {"/v1/nope", "/v1/crm/nothing/here", "/nope", "/v2/versions"}) {
      const HttpResult result = client.get(path, bearer(user.token));
      E2E_ASSERT_ERROR(404, result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(path, std::string("Not Found"), result.reason);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    const HttpResult post = client.post("/v1/nope", Json::object({{"a", 1}}), bearer(user.token));
    E2E_ASSERT_ERROR(404, post);
  }

  // An unknown path does not exist for anybody: 404, not 401.
  void testUnknownPathIs404EvenWithoutToken() {
    HttpClient client(httpServer().port());
    E2E_ASSERT_ERROR(404, client.get("/v1/nope"));
  }

  void testWrongMethodIs405WithAllow() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "method");

    const HttpResult login = client.del("/v1/auth/login");
    E2E_ASSERT_ERROR(405, login);
    CPPUNIT_ASSERT_EQUAL(std::string("Method Not Allowed"), login.reason);
    E2E_ASSERT_COMMON_HEADERS(login);
    CPPUNIT_ASSERT_MESSAGE(describe(login), login.hasHeader("Allow"));
    auto allowed = splitComma(login.header("Allow"));
    CPPUNIT_ASSERT_MESSAGE(describe(login), contains(allowed, "POST"));
    CPPUNIT_ASSERT_MESSAGE(describe(login), !contains(allowed, "DELETE"));

    const HttpResult companies =
        client.send("PUT", "/v1/user/companies", std::string("{}"), bearer(user.token));
    E2E_ASSERT_ERROR(405, companies);
    allowed = splitComma(companies.header("Allow"));
    CPPUNIT_ASSERT_MESSAGE(describe(companies), contains(allowed, "GET"));
    CPPUNIT_ASSERT_MESSAGE(describe(companies), contains(allowed, "POST"));
    CPPUNIT_ASSERT_MESSAGE(describe(companies), !contains(allowed, "PUT"));

    const HttpResult one = client.del("/v1/user/companies/" + user.companyId, bearer(user.token));
    E2E_ASSERT_ERROR(405, one);
    CPPUNIT_ASSERT_MESSAGE(describe(one), contains(splitComma(one.header("Allow")), "GET"));

    const HttpResult versions = client.post("/v1/versions");
    E2E_ASSERT_ERROR(405, versions);
    CPPUNIT_ASSERT_MESSAGE(describe(versions),
                           contains(splitComma(versions.header("Allow")), "GET"));
  }

  void testMalformedJsonIs400() {
    HttpClient client(httpServer().port());
    for (const std::string body : {"{\"email\": \"a@example.com\",", "not json", "{} trailing",
                                   "{'email': 1}", "{\"a\":}"}) {
      const HttpResult result = client.send("POST", "/v1/auth/login", body);
      E2E_ASSERT_ERROR(400, result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(body, std::string("Bad Request"), result.reason);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
  }

  void testBodyThatIsNotAnObjectIs400() {
    HttpClient client(httpServer().port());
    for (const std::string body :
         {"[]", "[{\"email\":\"a@example.com\"}]", "\"text\"", "42", "null", "true"}) {
      const HttpResult result = client.send("POST", "/v1/auth/login", body);
      E2E_ASSERT_ERROR(400, result);
    }
  }

  // RFC 8259 §8.1: JSON text is UTF-8; anything else is not valid JSON.
  void testInvalidUtf8Is400() {
    HttpClient client(httpServer().port());
    const std::string body = "{\"email\":\"a\xff\xfe@example.com\",\"password\":\"x\"}";
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/auth/login", body));
  }

  // A hostile nesting depth is refused, and the server lives on.
  void testDeepNestingIs400() {
    HttpClient client(httpServer().port());
    const std::string arrays = std::string(200000, '[') + std::string(200000, ']');
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/auth/login", arrays));
    std::string objects;
    for (int i = 0; i < 50000; ++i) objects += "{\"a\":";
    objects += "1" + std::string(50000, '}');
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/auth/login", objects));
    E2E_ASSERT_STATUS(200, HttpClient(httpServer().port()).get("/healthz"));
  }

  // decisions §1: unknown body fields and read-only fields are ignored.
  void testUnknownAndReadOnlyFieldsAreIgnored() {
    HttpClient client(httpServer().port());
    Account account;
    account.name = "Extra Fields";
    account.email = uniqueEmail("extra");
    account.password = "correct horse";
    account.companyName = "Extra Ltd";
    Json body = registrationBody(account);
    body.set("id", "user_forged");
    body.set("company_id", "comp_forged");
    body.set("two_factor_enabled", true);
    body.set("role", "admin");
    body.set("nonsense", Json::object({{"deep", Json::array()}}));
    const HttpResult result = client.post("/v1/auth/register", body);
    const Json data = E2E_ASSERT_DATA(201, result);
    CPPUNIT_ASSERT(data["user"]["id"].asString() != "user_forged");
    CPPUNIT_ASSERT(data["user"]["company_id"].asString() != "comp_forged");
    const Json me =
        E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(data["token"].asString())));
    CPPUNIT_ASSERT_EQUAL(false, me["two_factor_enabled"].asBool());
  }

  // Neither Content-Length nor chunked framing on a POST (curl -X POST, raw
  // bytes here since HTTP libraries add the length): the body is empty
  // (RFC 9112 section 6.3) and reads as {}, so login answers its 422.
  void testPostWithoutLengthHasEmptyBody() {
    const HttpResult result = rawExchange(httpServer().port(),
                                          "POST /v1/auth/login HTTP/1.1\r\n"
                                          "Host: 127.0.0.1\r\n"
                                          "Content-Type: application/json\r\n"
                                          "Connection: close\r\n"
                                          "\r\n");
    const Json body = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT(body["errors"].contains("email"));
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  // HTTP/1.1 chunked framing is a known length too.
  void testChunkedBodyIsRead() {
    const std::string body = "{\"email\":\"" + uniqueEmail("chunked") + "\"}";
    const std::string half = body.substr(0, body.size() / 2), rest = body.substr(body.size() / 2);
    auto hex = [](std::size_t n) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%zx", n);
      return std::string(buffer);
    };
    const HttpResult result = rawExchange(httpServer().port(),
                                          "POST /v1/auth/login HTTP/1.1\r\n"
                                          "Host: 127.0.0.1\r\n"
                                          "Content-Type: application/json\r\n"
                                          "Transfer-Encoding: chunked\r\n"
                                          "Connection: close\r\n"
                                          "\r\n" +
                                              hex(half.size()) + "\r\n" + half + "\r\n" +
                                              hex(rest.size()) + "\r\n" + rest + "\r\n0\r\n\r\n");
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("password"));
    CPPUNIT_ASSERT_MESSAGE(describe(result), !error["errors"].contains("email"));
  }

  void testChunkedBodyOverOneMebibyteIs413() {
    std::string request =
        "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    const std::string chunk(64 * 1024, ' ');
    for (int i = 0; i < 17; ++i) request += "10000\r\n" + chunk + "\r\n";
    request += "0\r\n\r\n";
    E2E_ASSERT_ERROR(413, rawExchange(httpServer().port(), request));
  }

  // A request the HTTP parser cannot read is still answered in the API's
  // shape (decisions §1: every response carries X-Request-Id and the
  // rate-limit headers; API Errors: every failure uses one envelope).
  void testUnparsableRequestGetsTheEnvelope() {
    const HttpResult result = rawExchange(httpServer().port(), "GARBAGE\r\n\r\n");
    E2E_ASSERT_ERROR(400, result);
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  void testOversizedRequestLineOrHeaderGetsTheEnvelope() {
    const HttpResult longUri = rawExchange(
        httpServer().port(), "GET /v1/" + std::string(20000, 'a') +
                                 " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if (longUri.status != 414) E2E_ASSERT_ERROR(400, longUri);
    E2E_ASSERT_ERROR(longUri.status, longUri);
    E2E_ASSERT_COMMON_HEADERS(longUri);

    const HttpResult longHeader = rawExchange(
        httpServer().port(), "GET /v1/versions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                                 std::string(20000, 'a') + "\r\nConnection: close\r\n\r\n");
    if (longHeader.status != 431) E2E_ASSERT_ERROR(400, longHeader);
    E2E_ASSERT_ERROR(longHeader.status, longHeader);
    E2E_ASSERT_COMMON_HEADERS(longHeader);
  }

  // RFC 9112 section 2.2 lets a server refuse a bare LF as a line end; we
  // do, so that a proxy splitting lines otherwise cannot smuggle a request.
  void testBareLfIs400() {
    const HttpResult result = rawExchange(
        httpServer().port(), "GET /v1/versions HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n");
    const Json body = E2E_ASSERT_ERROR(400, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Malformed request."), body["message"].asString());
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  // RFC 9112 section 3.2: HTTP/1.1 needs exactly one Host; HTTP/1.0 may omit it.
  void testHttp11WithoutHostIs400() {
    const HttpResult missing =
        rawExchange(httpServer().port(), "GET /v1/versions HTTP/1.1\r\nConnection: close\r\n\r\n");
    const Json body = E2E_ASSERT_ERROR(400, missing);
    CPPUNIT_ASSERT_EQUAL(std::string("The Host header is required."), body["message"].asString());
    E2E_ASSERT_COMMON_HEADERS(missing);

    const HttpResult twice =
        rawExchange(httpServer().port(),
                    "GET /v1/versions HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n");
    const Json twiceBody = E2E_ASSERT_ERROR(400, twice);
    CPPUNIT_ASSERT_EQUAL(std::string("Only one Host header is allowed."),
                         twiceBody["message"].asString());

    E2E_ASSERT_DATA(200, rawExchange(httpServer().port(), "GET /v1/versions HTTP/1.0\r\n\r\n"));
  }

  void testBadContentLengthIs400() {
    const HttpResult result = rawExchange(httpServer().port(),
                                          "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                          "Content-Type: application/json\r\n"
                                          "Content-Length: abc\r\nConnection: close\r\n\r\n{}");
    E2E_ASSERT_ERROR(400, result);
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  // A chunk size that is not hexadecimal makes the body unreadable: 400,
  // not a request judged as if its body were empty.
  void testBadChunkIs400() {
    const HttpResult result = rawExchange(
        httpServer().port(),
        "POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        "zz\r\n{\"email\":\"a@example.com\"}\r\n0\r\n\r\n");
    E2E_ASSERT_ERROR(400, result);
  }

  void testBodyOverOneMebibyteIs413() {
    HttpClient client(httpServer().port());
    std::string body = "{\"email\":\"" + std::string(1024 * 1024, 'a') + "\"}";
    const HttpResult result = client.send("POST", "/v1/auth/login", body);
    E2E_ASSERT_ERROR(413, result);
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  // The limit is "over 1 MiB": a body of exactly 1 MiB is read and judged.
  void testBodyOfExactlyOneMebibyteIsRead() {
    HttpClient client(httpServer().port());
    std::string body = "{\"email\":\"someone@example.com\"";
    body += std::string(1024 * 1024 - body.size() - 1, ' ') + "}";
    CPPUNIT_ASSERT_EQUAL(std::size_t(1024 * 1024), body.size());
    const HttpResult result = client.send("POST", "/v1/auth/login", body);
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("password"));
  }

  void testValidationNamesEveryMissingField() {
    HttpClient client(httpServer().port());
    const HttpResult result = client.post("/v1/auth/register", Json::object());
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Unprocessable Entity"), result.reason);
    E2E_ASSERT_COMMON_HEADERS(result);
    for (const char* field :
         {"name", "email", "password", "password_confirmation", "company_name"}) {
      CPPUNIT_ASSERT_MESSAGE(std::string(field) + " not named: " + describe(result),
                             error["errors"].contains(field));
    }
    // A field of the wrong type is a 422 on that field, not a 400.
    const HttpResult typed =
        client.post("/v1/auth/login", Json::object({{"email", 42}, {"password", "long enough"}}));
    const Json typedError = E2E_ASSERT_ERROR(422, typed);
    CPPUNIT_ASSERT_MESSAGE(describe(typed), typedError["errors"].contains("email"));
  }

  // errors appears on 422 only (assertError checks it on every status).
  void testErrorsOnlyOn422() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "errorsonly");
    E2E_ASSERT_ERROR(401, login(client, user.email, "wrong password"));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me"));
    E2E_ASSERT_ERROR(404, client.get("/v1/user/companies/comp_doesnotexist", bearer(user.token)));
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/auth/login", std::string("[")));
    const Json error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/login", Json::object()));
    CPPUNIT_ASSERT(error.contains("errors"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EnvelopeTest);
