#include "ContactsRoutes.h"

#include "ContactsJson.h"
#include "ContactsQuery.h"
#include "ContactsValidation.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace contacts {
namespace {

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Tx;

const char* const kNotFound = "Contact not found.";
// What a write answers (409) when the unique index on (company_id, email) refuses it.
const char* const kDuplicateEmail = "A contact with this email already exists.";

// company_id and owner_id are set on create only: sending the current value
// (null included) is fine, anything else is refused.
void requireUnchanged(const std::string& field, const rapport::Field<std::string>& sent,
                      const std::optional<std::string>& current) {
  if (sent.present && sent.value != current) {
    throw Error::invalidField(field, "The " + field + " cannot be changed after creation.");
  }
}

// Applies the fields a PATCH sent; false when it sent none that can change.
// Validation refuses a null or blank name, so name is absent or a value.
bool merge(const ContactInput& in, Contact& contact) {
  bool applied = false;
  applied |= in.name.applyTo(contact.name);
  applied |= in.email.applyTo(contact.email);
  applied |= in.phone.applyTo(contact.phone);
  applied |= in.jobTitle.applyTo(contact.jobTitle);
  applied |= in.notes.applyTo(contact.notes);
  applied |= in.tags.applyTo(contact.tags);  // null clears
  return applied;
}

}  // namespace

ContactsRoutes::ContactsRoutes(rapport::Host& host, bool companiesEnabled)
    : host_(host), companiesEnabled_(companiesEnabled) {}

Response ContactsRoutes::list(const Request& request) {
  return page(request, validateFilter(request, companiesEnabled_));
}

Response ContactsRoutes::listOfCompany(const Request& request) {
  const std::string& companyId = request.param("id");
  rapport::Queryable& db = host_.db();
  if (!host_.records().exists(db, request.identity.companyId, "company", companyId)) {
    throw Error::notFound("Company not found.");
  }
  ContactFilter filter = validateFilter(request, companiesEnabled_);
  filter.companyId = companyId;
  return page(request, filter);
}

Response ContactsRoutes::page(const Request& request, const ContactFilter& filter) {
  const rapport::RecordQuery& query = contactsQuery();
  return query.answer(host_, query.read(request),
                      store::whereOf(host_.db().dialect(), request.identity.companyId, filter),
                      store::columns(), contactJson);
}

Response ContactsRoutes::search(const Request& request) {
  return contactsQuery().search(host_, request, store::columns(), contactJson);
}

Response ContactsRoutes::create(const Request& request) {
  const ContactInput in = validateContact(request.bodyObject(), Mode::Create, companiesEnabled_);
  const Contact contact{.name = *in.name.value,
                        .email = in.email.value,
                        .phone = in.phone.value,
                        .jobTitle = in.jobTitle.value,
                        .crmCompanyId = in.companyId.value,
                        .ownerId = in.ownerId.value,
                        .tags = in.tags.valueOr({}),
                        .notes = in.notes.value};
  const std::string id = rapport::newId("cont_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    requireLinks(tx, contact);
    rapport::conflictOnDuplicate(kDuplicateEmail, [&] {
      created = contactJson(store::insert(tx, id, contact, rapport::nowMicros()));
    });
    tx.emit("crm.contact.created", created);
  });
  return Response::created(created, "Contact created.");
}

Response ContactsRoutes::get(const Request& request) {
  rapport::Queryable& db = host_.db();
  const auto row = store::find(db, request.identity.companyId, request.param("id"));
  if (!row) throw Error::notFound(kNotFound);
  return Response::ok(contactJson(*row));
}

Response ContactsRoutes::update(const Request& request) {
  const ContactInput in = validateContact(request.bodyObject(), Mode::Update, companiesEnabled_);
  const std::string& id = request.param("id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    Contact contact = store::fromRow(*row);
    const std::vector<std::string> tagsBefore = contact.tags;
    requireUnchanged("company_id", in.companyId, contact.crmCompanyId);
    requireUnchanged("owner_id", in.ownerId, contact.ownerId);
    if (!merge(in, contact)) {  // nothing to change: no write, no event
      updated = contactJson(*row);
      return;
    }
    rapport::conflictOnDuplicate(
        kDuplicateEmail, [&] { store::update(tx, id, contact, tagsBefore, rapport::nowMicros()); });
    updated = contactJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.contact.updated", updated);
  });
  return Response::ok(updated, "Contact updated.");
}

Response ContactsRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!store::remove(tx, id)) throw Error::notFound(kNotFound);
    host_.records().deleted(tx, "contact", id);  // deals and activities unlink it
    tx.emit("crm.contact.deleted", Json::object({{"id", id}}));
  });
  return Response::ok(Json::object({{"id", id}}), "Contact deleted.");
}

void ContactsRoutes::requireLinks(Tx& tx, const Contact& contact) const {
  const rapport::RecordDirectory& records = host_.records();
  if (contact.crmCompanyId && !records.lockForReference(tx, "company", *contact.crmCompanyId)) {
    throw Error::notFound("Company not found.");
  }
  if (contact.ownerId && !records.lockForReference(tx, "user", *contact.ownerId)) {
    throw Error::notFound("Owner not found.");
  }
}

}  // namespace contacts
