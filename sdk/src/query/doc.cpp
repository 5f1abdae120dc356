// What the API document says of a record list and its search
// (rapport/record_query.h): the query parameters, the search body, both
// forms of meta, and records that may carry only some fields.
#include "compiled.h"
#include "rapport/module.h"

namespace rapport {
namespace {

// The records of a list, as the API document describes them: the record's
// schema, or (with fields=) an object holding at least its id.
Json listedRecords(Json data) {
  if (Json* items = data.find("items")) {
    *items = schema::anyOf(
        {std::move(*items),
         schema::object({{"id", schema::string()}}, {"id"},
                        "The record with only the fields asked for (fields=) and its id.")});
  }
  return data;
}

}  // namespace

Json RecordQuery::queryDoc(std::vector<std::pair<std::string, Json>> extra) const {
  const query::Compiled& self = query::Access::of(*this);
  std::string sortable, includes;
  for (const QueryField& f : self.schema.fields) {
    if (f.sortable) sortable += (sortable.empty() ? "" : ", ") + f.name;
    if (!f.hop.empty()) includes += (includes.empty() ? "" : ", ") + f.hop;
  }
  for (const QueryInclude& include : self.schema.includes) {
    includes += (includes.empty() ? "" : ", ") + include.name;
  }
  schema::Properties properties = {
      {"page",
       schema::integer("1 or more; default 1. Ignored with limit or cursor.").set("minimum", 1)},
      {"per_page", schema::integerBetween(1, 100, "Default 20.")},
      {"sort", schema::string("Up to 3 comma-separated fields, each with - for descending "
                              "(ties break on id). Sortable: " +
                              sortable + ". Default " + self.schema.defaultSort + ".")},
      {"filter", schema::string("A JSON filter object, URL-encoded (docs/api-choices.md, "
                                "\"Querying lists\"); 422 on filter.<path>.")},
      {"fields", schema::string("Comma-separated fields to return (id is always returned).")},
      {"include", schema::string("Comma-separated references to embed: " +
                                 (includes.empty() ? std::string("none") : includes) + ".")},
      {"limit", schema::integerBetween(1, 100, "Cursor paging: records per page (default 20).")},
      {"cursor", schema::string("Cursor paging: meta.next_cursor of the previous page.")},
      {"count", schema::enumOf({"true", "false"}, "Cursor paging: true adds meta.total.")}};
  for (auto& property : extra) properties.push_back(std::move(property));
  return schema::object(std::move(properties));
}

Json RecordQuery::searchBodyDoc() const {
  const Json names = schema::anyOf({schema::arrayOf(schema::string()), schema::string()});
  return schema::object(
      {{"filter", schema::anyObject("The filter, as the list's filter parameter.")},
       {"sort", schema::anyOf({schema::string(), schema::arrayOf(schema::string())})},
       {"fields", names},
       {"include", names},
       {"limit", schema::integerBetween(1, 100, "Default 20.")},
       {"cursor", schema::string("meta.next_cursor of the previous page.")},
       {"count", schema::boolean("true adds meta.total.")}});
}

Json RecordQuery::cursorMetaDoc() {
  return schema::object(
      {{"per_page", schema::integer()},
       {"next_cursor",
        schema::nullable(schema::string("The next page's cursor; null on the last page."))},
       {"total", schema::integer("With count=true.")}},
      {"per_page", "next_cursor"});
}

void RecordQuery::describeList(Registry& registry, const std::string& path, RouteDoc doc) const {
  schema::Properties extra;
  if (doc.query.isObject()) {
    if (const Json* properties = doc.query.find("properties")) {
      for (const auto& member : properties->asObject()) extra.push_back(member);
    }
  }
  doc.query = queryDoc(std::move(extra));
  doc.data = listedRecords(std::move(doc.data));
  doc.paged = true;
  registry.describe("GET", path, std::move(doc));
  registry.describeExtra("GET", path, {.meta = cursorMetaDoc(), .readsBearerToken = false});
}

void RecordQuery::describeSearch(Registry& registry, const std::string& listPath,
                                 const std::string& summary, Json record) const {
  const std::string path = listPath + "/search";
  registry.describe("POST", path,
                    {.summary = summary,
                     .description = "The list's filter, sort, fields, include and cursor paging "
                                    "in a JSON body, for filters too long for a URL.",
                     .body = searchBodyDoc(),
                     .data = listedRecords(schema::arrayOf(std::move(record)))});
  registry.describeExtra("POST", path, {.meta = cursorMetaDoc(), .readsBearerToken = false});
}

}  // namespace rapport
