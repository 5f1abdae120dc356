// rapport::Resource's pure parts (rapport/resource.h): the declaration's
// checks, body validation per field kind, the record's JSON, the list's WHERE
// clause and sorts. The routes themselves are tested through the harness in
// examples/products/tests.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rapport/error.h"
#include "rapport/resource.h"

using rapport::Dialect;
using rapport::FieldKind;
using rapport::Json;
using rapport::Request;
using rapport::Resource;
using rapport::ResourceField;
using rapport::ResourceSpec;
using rapport::ResourceValues;
using rapport::ResourceWrite;
using rapport::Value;

namespace {

ResourceSpec products() {
  return {
      .path = "/crm/products",
      .table = "products",
      .recordType = "product",
      .idPrefix = "prod_",
      .eventPrefix = "crm.product",
      .noun = "Product",
      .fields =
          {{.name = "name", .required = true, .searchable = true, .sortable = true},
           {.name = "sku", .maxLength = 8, .unique = true, .searchable = true},
           {.name = "price", .kind = FieldKind::Money, .defaultValue = 0, .sortable = true},
           {.name = "stock", .kind = FieldKind::Integer, .min = -5, .max = 99, .filterable = true},
           {.name = "currency", .kind = FieldKind::Currency, .defaultValue = "USD"},
           {.name = "active",
            .kind = FieldKind::Boolean,
            .defaultValue = true,
            .filterable = true,
            .sortable = true},
           {.name = "email", .kind = FieldKind::Email, .filterable = true},
           {.name = "site", .kind = FieldKind::Url},
           {.name = "launch", .kind = FieldKind::Date, .sortable = true}},
      .writeRoles = {},
      .countsTable = ""};
}

// The 422 field errors of validate(), or {} when it passed.
rapport::FieldErrors errorsOf(const Json& body, ResourceWrite write) {
  try {
    Resource(products()).validate(body, write);
    return {};
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

std::vector<std::string> messages(const rapport::FieldErrors& errors, const std::string& field) {
  const auto found = errors.find(field);
  return found == errors.end() ? std::vector<std::string>{} : found->second;
}

// The value validate() wrote for `column`, or nullptr when it wrote none.
const Value* valueOf(const ResourceValues& values, const std::string& column) {
  for (const auto& [name, value] : values) {
    if (name == column) return &value;
  }
  return nullptr;
}

// The message of the declaration mistake `change` makes, or "" when accepted.
std::string refusalOf(void (*change)(ResourceSpec&)) {
  ResourceSpec spec = products();
  change(spec);
  try {
    Resource resource(spec);
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

Request withQuery(std::map<std::string, std::string> query) {
  Request request;
  request.query = std::move(query);
  return request;
}

}  // namespace

class ResourceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ResourceTest);
  CPPUNIT_TEST(testCreateFillsEveryFieldWithDefaults);
  CPPUNIT_TEST(testUpdateWritesOnlySentFields);
  CPPUNIT_TEST(testRequiredOnCreateNeverClearedOnUpdate);
  CPPUNIT_TEST(testEachKindsMessages);
  CPPUNIT_TEST(testValidValuesOfEachKind);
  CPPUNIT_TEST(testDeclarationMistakesAreRefused);
  CPPUNIT_TEST(testColumnsAndJson);
  CPPUNIT_TEST(testSortColumns);
  CPPUNIT_TEST(testWhereSearchesOnEachEngine);
  CPPUNIT_TEST(testWhereFilters);
  CPPUNIT_TEST(testWhereRefusesMalformedFilters);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCreateFillsEveryFieldWithDefaults() {
    const ResourceValues values =
        Resource(products()).validate(Json::object({{"name", " Lamp "}}), ResourceWrite::Create);
    CPPUNIT_ASSERT_EQUAL(std::size_t{9}, values.size());
    CPPUNIT_ASSERT_EQUAL(std::string("name"), values.front().first);  // declaration order
    CPPUNIT_ASSERT_EQUAL(std::string("Lamp"), valueOf(values, "name")->asString());
    CPPUNIT_ASSERT(valueOf(values, "sku")->isNull());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, valueOf(values, "price")->asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), valueOf(values, "currency")->asString());
    CPPUNIT_ASSERT(std::holds_alternative<bool>(valueOf(values, "active")->variant()));
    CPPUNIT_ASSERT_EQUAL(true, valueOf(values, "active")->asBool());
    CPPUNIT_ASSERT(valueOf(values, "launch")->isNull());
  }

  void testUpdateWritesOnlySentFields() {
    const ResourceValues values =
        Resource(products())
            .validate(Json::object(
                          {{"price", 250}, {"currency", nullptr}, {"sku", "  "}, {"unknown", 1}}),
                      ResourceWrite::Update);
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, values.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{250}, valueOf(values, "price")->asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"),
                         valueOf(values, "currency")->asString());  // null: default
    CPPUNIT_ASSERT(valueOf(values, "sku")->isNull());               // blank text clears
    CPPUNIT_ASSERT(valueOf(values, "name") == nullptr);
    CPPUNIT_ASSERT(Resource(products()).validate(Json::object(), ResourceWrite::Update).empty());
  }

  void testRequiredOnCreateNeverClearedOnUpdate() {
    const std::vector<std::string> required{"The name field is required."};
    CPPUNIT_ASSERT(messages(errorsOf(Json::object(), ResourceWrite::Create), "name") == required);
    CPPUNIT_ASSERT(errorsOf(Json::object(), ResourceWrite::Update).empty());
    CPPUNIT_ASSERT(messages(errorsOf(Json::object({{"name", nullptr}}), ResourceWrite::Update),
                            "name") == required);
    CPPUNIT_ASSERT(messages(errorsOf(Json::object({{"name", " "}}), ResourceWrite::Update),
                            "name") == required);
  }

  void testEachKindsMessages() {
    const rapport::FieldErrors errors = errorsOf(Json::object({{"name", 5},
                                                               {"sku", "123456789"},
                                                               {"price", -1},
                                                               {"stock", 100},
                                                               {"currency", "usd"},
                                                               {"active", "yes"},
                                                               {"email", "nope"},
                                                               {"site", "ftp://x.example"},
                                                               {"launch", "2023-02-30"}}),
                                                 ResourceWrite::Create);
    using Messages = std::vector<std::string>;
    CPPUNIT_ASSERT(messages(errors, "name") == Messages{"The name must be a string."});
    CPPUNIT_ASSERT(messages(errors, "sku") ==
                   Messages{"The sku may not be greater than 8 characters."});
    CPPUNIT_ASSERT(messages(errors, "price") == Messages{"The price must be at least 0."});
    CPPUNIT_ASSERT(messages(errors, "stock") == Messages{"The stock may not be greater than 99."});
    CPPUNIT_ASSERT(messages(errors, "currency") ==
                   Messages{"The currency must be a 3-letter upper-case code."});
    CPPUNIT_ASSERT(messages(errors, "active") ==
                   Messages{"The active field must be true or false."});
    CPPUNIT_ASSERT(messages(errors, "email") ==
                   Messages{"The email must be a valid email address."});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, messages(errors, "site").size());
    CPPUNIT_ASSERT(messages(errors, "launch") == Messages{"The launch is not a valid date."});
    CPPUNIT_ASSERT(
        messages(errorsOf(Json::object({{"name", "A"}, {"stock", -6}}), ResourceWrite::Create),
                 "stock") == Messages{"The stock must be at least -5."});
    CPPUNIT_ASSERT(
        messages(errorsOf(Json::object({{"name", "A"}, {"price", 1.5}}), ResourceWrite::Create),
                 "price") == Messages{"The price must be an integer."});
  }

  void testValidValuesOfEachKind() {
    const ResourceValues values = Resource(products())
                                      .validate(Json::object({{"name", "A"},
                                                              {"sku", "12345678"},
                                                              {"price", 0},
                                                              {"stock", -5},
                                                              {"currency", "EUR"},
                                                              {"active", false},
                                                              {"email", "Sales@Example.COM"},
                                                              {"site", "https://example.com/a"},
                                                              {"launch", "2024-02-29"}}),
                                                ResourceWrite::Create);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-5}, valueOf(values, "stock")->asInt());
    CPPUNIT_ASSERT_EQUAL(false, valueOf(values, "active")->asBool());
    CPPUNIT_ASSERT_EQUAL(std::string("sales@example.com"), valueOf(values, "email")->asString());
    CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29"), valueOf(values, "launch")->asString());
    CPPUNIT_ASSERT_EQUAL(std::string("EUR"), valueOf(values, "currency")->asString());
  }

  void testDeclarationMistakesAreRefused() {
    CPPUNIT_ASSERT_EQUAL(std::string(""), refusalOf([](ResourceSpec&) {}));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the path must start with '/'"),
                         refusalOf([](ResourceSpec& s) { s.path = "crm/products"; }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: invalid table name 'Products;'"),
                         refusalOf([](ResourceSpec& s) { s.table = "Products;"; }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the id prefix is empty"),
                         refusalOf([](ResourceSpec& s) { s.idPrefix = ""; }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the field name 'id' is reserved"),
                         refusalOf([](ResourceSpec& s) { s.fields.push_back({.name = "id"}); }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: invalid field name 'Price'"),
                         refusalOf([](ResourceSpec& s) { s.fields.push_back({.name = "Price"}); }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the field 'sku' is declared twice"),
                         refusalOf([](ResourceSpec& s) { s.fields.push_back({.name = "sku"}); }));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: at most one field may be unique"),
                         refusalOf([](ResourceSpec& s) { s.fields[0].unique = true; }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("resource declaration: the default of 'price' does not match its kind"),
        refusalOf([](ResourceSpec& s) { s.fields[2].defaultValue = "0"; }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("resource declaration: the sortable boolean 'active' needs a default or "
                    "required"),
        refusalOf([](ResourceSpec& s) { s.fields[5].defaultValue.reset(); }));
    CPPUNIT_ASSERT_EQUAL(
        std::string("resource declaration: the sortable nullable integer 'stock' needs min >= 0"),
        refusalOf([](ResourceSpec& s) { s.fields[3].sortable = true; }));
  }

  void testColumnsAndJson() {
    const Resource resource(products());
    CPPUNIT_ASSERT_EQUAL(
        std::string("id, name, sku, price, stock, currency, active, email, site, launch, "
                    "created_at, updated_at"),
        resource.columns());
    auto columns = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"id", "name", "sku", "price", "stock", "currency", "active",
                                 "email", "site", "launch", "created_at", "updated_at"});
    // SQLite reads a boolean as 0/1: the JSON says true or false.
    const rapport::Row row(columns,
                           {"prod_1", "Lamp", nullptr, 1250, nullptr, "USD", 1, nullptr, nullptr,
                            "2024-01-02", 1700000000000000LL, 1700000000500000LL});
    const Json expected = Json::object({{"id", "prod_1"},
                                        {"name", "Lamp"},
                                        {"sku", nullptr},
                                        {"price", 1250},
                                        {"stock", nullptr},
                                        {"currency", "USD"},
                                        {"active", true},
                                        {"email", nullptr},
                                        {"site", nullptr},
                                        {"launch", "2024-01-02"},
                                        {"created_at", "2023-11-14T22:13:20.000000Z"},
                                        {"updated_at", "2023-11-14T22:13:20.500000Z"}});
    CPPUNIT_ASSERT_EQUAL(expected.dump(), resource.toJson(row).dump());
  }

  void testSortColumns() {
    // What each sortable field of products() orders by (and its index holds).
    const ResourceSpec spec = products();
    std::map<std::string, std::string> sorts;
    for (const auto& field : spec.fields) {
      if (field.sortable) sorts[field.name] = rapport::sortExpression(field);
    }
    const std::map<std::string, std::string> expected = {{"active", "active"},
                                                         {"launch", "coalesce(launch, '')"},
                                                         {"name", "lower(name)"},
                                                         {"price", "price"}};
    CPPUNIT_ASSERT(sorts == expected);
    // A column other than the name, and the module's own expression.
    CPPUNIT_ASSERT_EQUAL(
        std::string("coalesce(crm_company_id, '')"),
        rapport::sortExpression(
            {.name = "company_id", .kind = FieldKind::Reference, .column = "crm_company_id"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("coalesce(due, '9999')"),
        rapport::sortExpression(
            {.name = "due", .kind = FieldKind::Date, .sortExpression = "coalesce(due, '9999')"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("coalesce(lower(stage), '')"),
        rapport::sortExpression({.name = "stage", .kind = FieldKind::Enum, .options = {"a"}}));
    CPPUNIT_ASSERT_EQUAL(std::string("coalesce(lower(sku), '')"),
                         rapport::sortExpression({.name = "sku"}));
    CPPUNIT_ASSERT_EQUAL(std::string("coalesce(amount, -1)"),
                         rapport::sortExpression({.name = "amount", .kind = FieldKind::Money}));
  }

  void testWhereSearchesOnEachEngine() {
    const Resource resource(products());
    const Request request = withQuery({{"search", " Lamp "}});
    const rapport::WhereClause sqlite = resource.where(request, Dialect::SQLite, "comp_1");
    CPPUNIT_ASSERT_EQUAL(
        std::string("+company_id = ? AND seq IN (SELECT rowid FROM products_search WHERE "
                    "products_search MATCH ?)"),
        sqlite.sql());
    CPPUNIT_ASSERT_EQUAL(std::string("\"Lamp\""), sqlite.params().at(1).asString());
    const rapport::WhereClause pg = resource.where(request, Dialect::PostgreSQL, "comp_1");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND search_text LIKE lower(?) ESCAPE '\\'"),
                         pg.sql());
    CPPUNIT_ASSERT_EQUAL(std::string("%Lamp%"), pg.params().at(1).asString());
    // No searchable field: ?search= is not a filter of the resource.
    ResourceSpec plain = products();
    for (ResourceField& field : plain.fields) field.searchable = false;
    CPPUNIT_ASSERT(!Resource(plain).where(request, Dialect::SQLite, "comp_1").filtered());
  }

  void testWhereFilters() {
    const Resource resource(products());
    const rapport::WhereClause where = resource.where(
        withQuery({{"active", "false"}, {"stock", "-3"}, {"email", " A@B.io "}, {"sku", "x"}}),
        Dialect::PostgreSQL, "comp_1");
    // In declaration order; sku is not filterable.
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND stock = ? AND active = ? AND email = ?"),
                         where.sql());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-3}, where.params().at(1).asInt());
    CPPUNIT_ASSERT(std::holds_alternative<bool>(where.params().at(2).variant()));
    CPPUNIT_ASSERT_EQUAL(false, where.params().at(2).asBool());
    CPPUNIT_ASSERT_EQUAL(std::string("a@b.io"), where.params().at(3).asString());
    // Blank filters are ignored.
    CPPUNIT_ASSERT(!resource.where(withQuery({{"active", " "}}), Dialect::SQLite, "c").filtered());
  }

  void testWhereRefusesMalformedFilters() {
    try {
      Resource(products())
          .where(
              withQuery({{"active", "yes"}, {"stock", "1.5"}, {"search", std::string(256, 'a')}}),
              Dialect::SQLite, "comp_1");
      CPPUNIT_FAIL("malformed filters were accepted");
    } catch (const rapport::Error& error) {
      CPPUNIT_ASSERT_EQUAL(422, error.status());
      using Messages = std::vector<std::string>;
      CPPUNIT_ASSERT(messages(error.errors(), "active") ==
                     Messages{"The active field must be true or false."});
      CPPUNIT_ASSERT(messages(error.errors(), "stock") ==
                     Messages{"The stock must be an integer."});
      CPPUNIT_ASSERT(messages(error.errors(), "search") ==
                     Messages{"The search may not be greater than 255 characters."});
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ResourceTest);
