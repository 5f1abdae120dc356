// The server and helpers shared by the e2e.query suites (decisions §13,
// sdk/include/rapport/record_query.h): every CRM module enabled, filters
// written as JSON and URL-encoded, list and search requests, the cursor walk,
// and the assertions on a 422's error key and a cursor answer's meta.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "e2e/activities/ActivitiesSuite.h"
#include "e2e/deals/DealsSuite.h"

namespace rapport::e2e::query {

using namespace rapport::e2e::crm;
using Ids = std::vector<std::string>;

inline ServerProcess& queryServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

// Percent-encodes `text` for a query string value: RFC 3986's unreserved
// characters stay, every other byte is %XX.
inline std::string urlEncode(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// "filter=<the filter's JSON, URL-encoded>".
inline std::string filterParam(const Json& filter) {
  return "filter=" + urlEncode(filter.dump());
}

// GET <path>?<query> as `token`, asserting 200 (the envelope); the whole body.
inline Json listBody(HttpClient& client, const std::string& token, const std::string& path,
                     const std::string& query) {
  return getBody(client, token, path + (query.empty() ? "" : "?" + query));
}

// POST <path>/search with `body` as `token`; the raw answer.
inline HttpResult search(HttpClient& client, const std::string& token, const std::string& path,
                         const Json& body) {
  return client.post(path + "/search", body, bearer(token));
}

// The ids `filter` selects from the list at `path`, oldest first (one page of
// 100, sorted by created_at): the order the datasets create their records in.
inline Ids matching(HttpClient& client, const std::string& token, const std::string& path,
                    const Json& filter) {
  return idsOf(
      listBody(client, token, path, filterParam(filter) + "&sort=created_at&per_page=100"));
}

// The ids of the list at `path` with `query` (one page of 100).
inline Ids listed(HttpClient& client, const std::string& token, const std::string& path,
                  const std::string& query) {
  return idsOf(listBody(client, token, path, query + (query.empty() ? "" : "&") + "per_page=100"));
}

// `ids` sorted by id, ascending or descending: the order of records tied on
// every sort key.
inline Ids byId(Ids ids, bool descending = false) {
  std::sort(ids.begin(), ids.end());
  if (descending) std::reverse(ids.begin(), ids.end());
  return ids;
}

// Concatenation: the expected order of several blocks.
inline Ids concat(std::initializer_list<Ids> blocks) {
  Ids out;
  for (const Ids& block : blocks) out.insert(out.end(), block.begin(), block.end());
  return out;
}

// The names of an object's members, sorted.
inline std::vector<std::string> keysOf(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& member : object.asObject()) keys.push_back(member.first);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// A 422 whose errors name exactly `key` (message free).
inline Json assertErrorKey(const HttpResult& result, const std::string& key,
                           const CppUnit::SourceLine& line) {
  return assertFieldError(result, key, "", line);
}

// A 422 whose errors name a key that is `prefix` or starts with `prefix.`:
// for limits §13 does not give a path for (the 51st condition, the 6th level).
inline Json assertErrorUnder(const HttpResult& result, const std::string& prefix,
                             const CppUnit::SourceLine& line) {
  const Json body = assertError(422, result, line);
  for (const auto& member : body["errors"].asObject()) {
    if (member.first == prefix || member.first.rfind(prefix + ".", 0) == 0) return body;
  }
  CppUnit::Asserter::fail(CppUnit::Message("errors name nothing under " + prefix, describe(result)),
                          line);
  return body;
}

// A cursor answer's meta: exactly {per_page, next_cursor} (plus total with
// count=true), per_page the limit, next_cursor a string or null.
inline void assertCursorMeta(const Json& meta, std::int64_t limit, bool withTotal,
                             const CppUnit::SourceLine& line) {
  const std::vector<std::string> expected =
      withTotal ? std::vector<std::string>{"next_cursor", "per_page", "total"}
                : std::vector<std::string>{"next_cursor", "per_page"};
  const bool shaped = meta.isObject() && keysOf(meta) == expected && meta["per_page"].isInt() &&
                      meta["per_page"].asInt() == limit &&
                      (meta["next_cursor"].isNull() || meta["next_cursor"].isString()) &&
                      (!withTotal || meta["total"].isInt());
  if (!shaped) {
    CppUnit::Asserter::fail(
        CppUnit::Message("not the cursor meta (per_page " + std::to_string(limit) + ")",
                         meta.dump()),
        line);
  }
}

#define QUERY_ASSERT_ERROR_KEY(result, key) \
  ::rapport::e2e::query::assertErrorKey((result), (key), CPPUNIT_SOURCELINE())
#define QUERY_ASSERT_ERROR_UNDER(result, prefix) \
  ::rapport::e2e::query::assertErrorUnder((result), (prefix), CPPUNIT_SOURCELINE())
#define QUERY_ASSERT_CURSOR_META(meta, limit, withTotal) \
  ::rapport::e2e::query::assertCursorMeta((meta), (limit), (withTotal), CPPUNIT_SOURCELINE())

// Every page of a cursor walk over the list at `path` with `query`, `limit`
// records a page: the ids in the order served and each page's meta. Each
// page's meta is checked; the walk fails past `maxPages` (a cursor that
// never ends). `between(page, served)` runs after each page but the last,
// with the ids served so far (writes between pages).
struct Walk {
  Ids ids;
  std::vector<Json> metas;
};

inline Walk walk(HttpClient& client, const std::string& token, const std::string& path,
                 const std::string& query, std::int64_t limit,
                 const std::function<void(int page, const Ids& served)>& between = {},
                 int maxPages = 200) {
  Walk out;
  std::string cursor;
  for (int page = 0; page < maxPages; ++page) {
    std::string params = query + (query.empty() ? "" : "&") + "limit=" + std::to_string(limit);
    if (!cursor.empty()) params += "&cursor=" + urlEncode(cursor);
    const Json body = listBody(client, token, path, params);
    QUERY_ASSERT_CURSOR_META(body["meta"], limit, false);
    CPPUNIT_ASSERT_MESSAGE(body.dump(), body["data"].size() <= static_cast<std::size_t>(limit));
    for (const std::string& id : idsOf(body)) out.ids.push_back(id);
    out.metas.push_back(body["meta"]);
    if (body["meta"]["next_cursor"].isNull()) return out;
    cursor = body["meta"]["next_cursor"].asString();
    if (between) between(page, out.ids);
  }
  CPPUNIT_FAIL("the cursor walk of " + path + "?" + query + " did not end");
  return out;
}

// The cursor of the first page of `path` with `query` and `limit` (asserting
// one is given).
inline std::string firstCursor(HttpClient& client, const std::string& token,
                               const std::string& path, const std::string& query,
                               std::int64_t limit) {
  const Json body = listBody(client, token, path,
                             query + (query.empty() ? "" : "&") + "limit=" + std::to_string(limit));
  CPPUNIT_ASSERT_MESSAGE(body.dump(), body["meta"]["next_cursor"].isString());
  return body["meta"]["next_cursor"].asString();
}

// `iso` (an ISO-8601 UTC instant "YYYY-MM-DDTHH:MM:SS[.ffffff]Z") written for
// the same instant with the offset `minutes` east of UTC ("+02:00").
inline std::string atOffset(const std::string& iso, int minutes) {
  std::tm utc{};
  CPPUNIT_ASSERT_MESSAGE(iso, iso.size() >= 20 && iso.back() == 'Z');
  utc.tm_year = std::stoi(iso.substr(0, 4)) - 1900;
  utc.tm_mon = std::stoi(iso.substr(5, 2)) - 1;
  utc.tm_mday = std::stoi(iso.substr(8, 2));
  utc.tm_hour = std::stoi(iso.substr(11, 2));
  utc.tm_min = std::stoi(iso.substr(14, 2));
  utc.tm_sec = std::stoi(iso.substr(17, 2));
  const std::string fraction = iso.substr(19, iso.size() - 20);  // ".123456" or ""
  const std::time_t local = timegm(&utc) + static_cast<std::time_t>(minutes) * 60;
  std::tm shifted{};
  gmtime_r(&local, &shifted);
  char head[32];
  std::strftime(head, sizeof head, "%Y-%m-%dT%H:%M:%S", &shifted);
  const int offset = minutes < 0 ? -minutes : minutes;
  char zone[32];
  std::snprintf(zone, sizeof zone, "%c%02d:%02d", minutes < 0 ? '-' : '+', offset / 60,
                offset % 60);
  return head + fraction + zone;
}

}  // namespace rapport::e2e::query
