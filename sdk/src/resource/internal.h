// What the files of the record engine (rapport::Resource) share: the
// declaration's derived names and words, and the per-field helpers. Private
// to the SDK library.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rapport/listing_tables.h"
#include "rapport/resource.h"
#include "rapport/tags.h"

namespace rapport::resource_detail {

// --- The declaration ---------------------------------------------------------

bool isTextKind(FieldKind kind);    // compared as text: Text, Email, Url, Currency, Enum
bool isNumberKind(FieldKind kind);  // Integer, Money
// A field that is never null in storage.
bool isNotNull(const ResourceField& field);
// The field's column (its name unless `column` says otherwise); a Related
// field's prefix.
std::string columnOf(const ResourceField& field);
// The columns a field is stored in: one, or a Related field's two.
std::vector<std::string> columnsOf(const ResourceField& field);
std::string relatedTypeColumn(const ResourceField& field);  // "<column>_type"
std::string relatedIdColumn(const ResourceField& field);    // "<column>_id"

const ResourceField* tagsField(const ResourceSpec& spec);
const ResourceField* uniqueField(const ResourceSpec& spec);
bool anySearchable(const ResourceSpec& spec);

// The listing tables when the engine writes the table (storage.recordColumn).
std::optional<ListingTables> listingOf(const ResourceSpec& spec);
// The tag table of a resource with a Tags field (the listing tables' names),
// owning the strings rapport::TagTable views.
struct TagNames {
  std::string table;
  std::string recordColumn;
  std::string recordTable;
  std::string countsTable;
  TagTable view() const { return {table, recordColumn, recordTable, countsTable}; }
};
std::optional<TagNames> tagNamesOf(const ResourceSpec& spec);
// The counts table lists read their total from: countsTable, or storage's.
std::string countsTableOf(const ResourceSpec& spec);

// The engine's migrations of the table (Resource::migrations without the
// custom fields' column).
std::vector<Migration> tableMigrations(const ResourceSpec& spec);
// The id of the engine's listingCountSlotsMigration (since 10.1):
// "<storage.migration>_count_slots", right after the table's.
std::string countSlotsMigrationId(const ResourceSpec& spec);

// Throws std::invalid_argument naming the declaration's mistake.
void checkSpec(const ResourceSpec& spec);
// What clients may query on the resource (record_query.h).
RecordSchema querySchemaOf(const ResourceSpec& spec);

// --- Words -------------------------------------------------------------------

// "a CRM company", "an invoice": the word after its article.
std::string withArticle(const std::string& word);
// The title as a sentence's subject: "A CRM company", "An invoice".
std::string subjectOf(const ResourceSpec& spec);
std::string titleOf(const ResourceSpec& spec);        // "CRM company"; "product"
std::string pluralTitleOf(const ResourceSpec& spec);  // "CRM companies"; "products"
std::string schemaNameOf(const ResourceSpec& spec);   // "CrmCompany"; "Product"
std::string scopeOf(const ResourceSpec& spec);        // "companies"; "products" (scopes.h)
std::string notFoundMessage(const ResourceSpec& spec);
std::string duplicateMessage(const ResourceSpec& spec);
// "The company_id field cannot be used: the companies module is not enabled."
std::string unavailableFieldMessage(const ResourceField& field, const ResourceReference& target);
// "The related type company is not available: the companies module is not enabled."
std::string unavailableTypeMessage(const ResourceReference& target);
bool isAvailable(const ResourceReference& target, const std::set<std::string>& unavailable);

// --- Values ------------------------------------------------------------------

// One field of the record as GET shows it, from a row holding its columns.
Json fieldJson(const ResourceField& field, const Row& row);
// The unique field's value in a batch item, read as POST reads it; throws
// Error::validation when it is absent or invalid.
Value matchValue(const ResourceField& field, const Json& data);
// The list's WHERE clause (Resource::where); a sub-list leaves out the
// filter of the field it is limited by (`parent`).
// `customSearch`: the company's text custom fields (ids), which ?search=
// matches as well. `db`: where ?search= reads its trigram counts, to ask the
// index for the rarest only (search.h); without it, the whole term.
WhereClause whereOf(const ResourceSpec& spec, const Request& request, Dialect dialect,
                    const std::string& tenant, const std::set<std::string>& unavailable,
                    const ResourceField* parent, const std::vector<std::string>& customSearch = {},
                    Queryable* db = nullptr);

}  // namespace rapport::resource_detail
