#include "storage/PreparedStatement.h"

namespace rapport::host {
namespace {

char signatureChar(const Value& value) {
  static constexpr char kChars[] = {'N', 'B', 'I', 'D', 'S'};
  return kChars[value.variant().index()];
}

}  // namespace

std::string signatureOf(const Params& params) {
  std::string signature;
  signature.reserve(params.size());
  for (const Value& value : params) signature += signatureChar(value);
  return signature;
}

}  // namespace rapport::host
