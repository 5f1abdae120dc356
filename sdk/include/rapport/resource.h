// A declarative CRUD resource: a simple record module as a declaration.
//
//   rapport::Resource({.path = "/crm/products", .table = "products",
//                      .recordType = "product", .idPrefix = "prod_",
//                      .eventPrefix = "crm.product", .noun = "Product",
//                      .fields = {{.name = "name", .required = true, .searchable = true},
//                                 {.name = "price", .kind = rapport::FieldKind::Money,
//                                  .defaultValue = 0}}})
//       .install(host, registry);  // in Module::setup
//
// serves, for one table of one tenant's records, exactly as the first-party
// modules do (modules/contacts is the model; the same messages, statuses and
// envelopes):
//   POST   <path>        201 "<Noun> created.", the record; 422 on invalid
//                        fields; 409 on a duplicate unique field
//   GET    <path>        the list: ?page, ?per_page, ?search (when a field is
//                        searchable), ?<field>=<value> for each filterable
//                        field, and the query language of record_query.h
//                        (filter, sort on up to 3 of any fields, fields,
//                        limit/cursor/count; newest first by default)
//   POST   <path>/search the same query language in a JSON body
//   GET    <path>/{id}   the record; 404 "<Noun> not found." (also for another
//                        company's record)
//   PATCH  <path>/{id}   only the sent fields change; 200 "<Noun> updated."
//   DELETE <path>/{id}   200 "<Noun> deleted.", data {id}
//   POST   <path>/batch  up to 100 creates and updates in one call (batch.h),
//                        and upserts by the unique field when there is one
// It describes the five routes for the API document (api_doc.h), with the
// record's schema named after `noun`, and declares the event types <eventPrefix>.created, .updated
// (data: the record as GET returns it) and .deleted (data: {id}), and the record type `recordType`
// in the record directory (records.h: exists and fetch), so other modules can reference, guard,
// augment and unlink it. Deleting a record runs the directory's guards and reactions in the same
// transaction.
//
// The record as JSON: {"id", each field in declaration order, "created_at",
// "updated_at"}. Text fields read as a string or null, integers and money as
// numbers, booleans as true/false.
//
// The table (the module's own migrations, one file per dialect; see
// examples/products/migrations for a complete pair) follows db.h's and
// query.h's conventions, with one column per field named like the field:
//   id TEXT (PostgreSQL: PRIMARY KEY; SQLite: NOT NULL UNIQUE beside
//   `seq INTEGER PRIMARY KEY`), company_id TEXT NOT NULL, the fields' columns
//   (TEXT for Text, Email, Url, Date and Currency; BIGINT for Integer and
//   Money; BOOLEAN on PostgreSQL and INTEGER on SQLite for Boolean; NOT NULL
//   when the field is required or has a default), created_at and updated_at
//   BIGINT NOT NULL;
//   - a unique field: CREATE UNIQUE INDEX ... (company_id, <field>);
//   - searchable fields: the generated column search_text (the searchable
//     fields, lower-cased, joined by a line break, a null one as ''), indexed
//     as query.h says; the SQLite FTS5 table is named "<table>_search";
//   - the order: indexes (company_id, created_at, id), (company_id,
//     updated_at, id), and (company_id, <sortExpression(field)>, id) for
//     each sortable field; (company_id, <field>, created_at, id) for each
//     filterable one.
//
// ABI: ResourceField and ResourceSpec are constructed by modules: a change of
// their members is an ABI major change (abi.h). Resource holds only shared
// pointers to its declaration and its query language.
//
// Threading: a Resource is immutable once constructed; its handlers run
// concurrently on the host's threads and keep no per-request state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/module.h"
#include "rapport/pagination.h"
#include "rapport/query.h"
#include "rapport/record_query.h"
#include "rapport/roles.h"

namespace rapport {

// What a field holds, and which rule (validation.h) reads it.
enum class FieldKind {
  Text,      // a string of at most maxLength characters, trimmed; blank reads as null
  Email,     // Validator::email: lower-cased, at most 254 characters
  Url,       // Validator::url: http or https
  Integer,   // Validator::integer with min and max
  Money,     // integer cents, non-negative (decisions §1), at most max when given
  Boolean,   // true or false
  Date,      // "YYYY-MM-DD", a real calendar date
  Currency,  // a 3-letter upper-case code ("USD"), as deals' currency
};

// One field of a resource: its API name (also its column's name) and rules.
struct ResourceField {
  // Lower case, digits and '_'; not id, company_id, created_at, updated_at,
  // search_text or seq.
  std::string name = "";
  FieldKind kind = FieldKind::Text;
  // Required on create ("The name field is required."); a PATCH may leave it
  // out but never clear it. A required field needs no default.
  bool required = false;
  // Text only: the longest value, in characters.
  std::size_t maxLength = 255;
  // Integer only (Money: max only): the smallest and largest values.
  std::optional<std::int64_t> min = std::nullopt;
  std::optional<std::int64_t> max = std::nullopt;
  // Stored when the field is absent on create, or sent as null: the column
  // is then never null. Its JSON type must match the kind (a string, an
  // integer, true or false). Without one, an absent field is null and a sent
  // null clears it.
  std::optional<Json> defaultValue = std::nullopt;
  // Unique per company (the unique index refuses a duplicate): the write
  // answers 409 with uniqueMessage, by default "A <noun> with this <name>
  // already exists.". At most one field of a resource is unique.
  bool unique = false;
  std::string uniqueMessage = "";
  // Part of search_text: ?search= matches it as a substring, in any case.
  bool searchable = false;
  // ?<name>=<value> keeps the records whose field equals the value (Boolean:
  // "true" or "false"; Integer and Money: an integer; text kinds: exactly,
  // Email lower-cased). A blank value is ignored; a malformed one is a 422.
  bool filterable = false;
  // ?sort=<name> and ?sort=-<name> order by sortExpression(field). A sortable
  // Boolean needs a default or required; a nullable sortable Integer needs
  // min >= 0 (a null sorts as -1).
  bool sortable = false;
};

// The whole resource: where it is served and what it stores.
struct ResourceSpec {
  std::string path = "";         // version-relative collection path: "/crm/products"
  std::string table = "";        // its table: "products"
  std::string recordType = "";   // in the record directory: "product"
  std::string idPrefix = "";     // ids are newId(idPrefix): "prod_"
  std::string eventPrefix = "";  // "crm.product": crm.product.created, .updated, .deleted
  // Capitalised, singular: "Product" makes "Product not found.", "Product
  // created.", and the event descriptions "A product was created." ("An"
  // before a vowel).
  std::string noun = "";
  std::vector<ResourceField> fields = {};
  // Roles allowed to create, change and delete; empty: every member of the
  // company. Reads are open to every member.
  std::vector<Role> writeRoles = {};
  // Optional: a counts table of the record table as query.h's selectPage
  // describes (company_id, slot, total, kept by triggers), so an unfiltered
  // list reads its total from a few rows. Empty: lists count their rows.
  std::string countsTable = "";
};

// Which request a body is validated for.
enum class ResourceWrite { Create, Update };

// The values a validated body writes, column by column, in field order: on
// Create every field (an absent one as its default, or null); on Update only
// the fields sent (a sent null as the field's default, or null).
using ResourceValues = std::vector<std::pair<std::string, Value>>;

// A resource built from its declaration. Cheap to copy (copies share the
// declaration). Everything but install() is pure and usable in unit tests.
class RAPPORT_SDK_API Resource {
 public:
  // Checks the declaration; a mistake in it (an empty path, a reserved or
  // duplicate field name, two unique fields, a default of the wrong type...)
  // throws std::invalid_argument naming it. Thrown from setup(), the host
  // refuses to start with the module's name and that message.
  explicit Resource(ResourceSpec spec);

  const ResourceSpec& spec() const;
  // Since 7.0. Its query language (record_query.h): every field filters and
  // sorts (by sortExpression), searchable ones narrow `contains` on the
  // search index; the list and POST <path>/search answer it.
  const RecordQuery& query() const;

  // Registers the five routes, the three event types and the record type on
  // `registry`; call it from Module::setup only. The handlers keep `host`
  // (valid from setup() to stop(), module.h) and a copy of this resource.
  void install(Host& host, Registry& registry) const;

  // The body's fields, read by each field's rule; throws Error::validation
  // (422, every field's messages at once) when any breaks its rule. Unknown
  // and read-only fields in the body are ignored.
  ResourceValues validate(const Json& body, ResourceWrite write) const;

  // "id, <fields...>, created_at, updated_at": what every read selects.
  std::string columns() const;

  // The record as GET returns it, from a row holding columns().
  Json toJson(const Row& row) const;

  // The list's WHERE clause from the request's ?search= and filters; throws
  // Error::validation (422) for a search over kMaxSearchLength characters or
  // a malformed filter value.
  WhereClause where(const Request& request, Dialect dialect, const std::string& tenant) const;

  // The ?sort= fields and their SQL: created_at, updated_at and each
  // sortable field's sortExpression.
  std::map<std::string, std::string> sortColumns() const;

 private:
  std::shared_ptr<const ResourceSpec> spec_;
  std::shared_ptr<const RecordQuery> query_;
};

// The SQL a sortable field orders by (and its index must hold): lower(<name>)
// for Text, Email, Url and Currency, the column itself for the other kinds;
// for a field that may be null (not required, no default)
// coalesce(lower(<name>), '') for those four, coalesce(<name>, '') for Date
// and coalesce(<name>, -1) for Integer and Money, so that both engines put
// the nulls at the same end.
RAPPORT_SDK_API std::string sortExpression(const ResourceField& field);

}  // namespace rapport
