#include "accounts/reset/ResetIdentities.h"

#include "accounts/UserStore.h"
#include "accounts/social/SocialStore.h"

namespace rapport::host::accounts::reset {

std::string providerDisplayName(const std::string& provider) {
  if (provider == "google") return "Google";
  if (provider == "github") return "GitHub";
  if (provider == "microsoft") return "Microsoft";
  return provider;
}

void mentionLinkedProviders(mail::Letter& letter, const std::vector<std::string>& providers) {
  if (providers.empty()) return;
  std::string names;
  for (std::size_t i = 0; i < providers.size(); ++i) {
    if (i > 0) names += i + 1 == providers.size() ? " and " : ", ";
    names += providerDisplayName(providers[i]);
  }
  letter.closing.push_back(
      "This account can also be signed into with " + names +
      ". If you did not link this yourself, ask to remove the linked sign-ins when you choose "
      "the new password, or remove them afterwards in your account.");
}

std::vector<std::string> linkedProviders(Queryable& db, const std::string& userId) {
  return social::store::providersOf(db, userId);
}

std::int64_t afterResetByEmail(Queryable& tx, const std::string& userId,
                               const std::string& emailLower, bool removeIdentities,
                               std::int64_t now) {
  // Reading the mailed token proves the mailbox, as a verification link does.
  users::markEmailVerified(tx, userId, emailLower, now);
  return removeIdentities ? social::store::deleteIdentities(tx, userId) : 0;
}

}  // namespace rapport::host::accounts::reset
