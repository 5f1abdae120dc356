#include "openapi/ResponseCheck.h"

#include "openapi/SchemaCheck.h"
#include "rapport/api_doc.h"

namespace rapport::host {

std::string responseMismatch(const Route& route, const rapport::Response& response,
                             const ApiSchemas& schemas) {
  if (!route.doc || response.status < 200 || response.status > 299) return {};
  const rapport::RouteDoc& doc = *route.doc;
  if (response.status != doc.status) {
    return "status " + std::to_string(response.status) + ", described " +
           std::to_string(doc.status);
  }
  if (doc.data.isNull()) {
    if (response.data && route.body == RouteBody::Envelope) return "data sent, none described";
  } else if (!response.data) {
    return "no data, described " + doc.data.dump();
  } else if (std::string problem = schemaMismatch(*response.data, doc.data, schemas, "data");
             !problem.empty()) {
    return problem;
  }
  if (doc.paged) {
    if (!response.meta) return "no meta on a paged route";
    return schemaMismatch(*response.meta, rapport::schema::ref("PageMeta"), schemas, "meta");
  }
  return {};
}

}  // namespace rapport::host
