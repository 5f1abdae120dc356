// Writes each message as an .eml file into a folder (mail.outbox), for
// development and for installations without SMTP. The folder is created
// with mode 0700 and every file with 0600: a body may carry a reset token
// or a sign-in code. A file is written under a hidden temporary name
// (".<name>.tmp") and renamed, so a reader listing *.eml never sees half a
// message; the rename is the point of no return (Transport.h). Names sort
// by time and never repeat:
//   20261123T225652.123456Z-000001-mail_<id>.eml
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "mail/Transport.h"

namespace rapport::host::mail {

class OutboxTransport : public Transport {
 public:
  // Creates `folder` (and its parents) when missing. Throws std::runtime_error.
  explicit OutboxTransport(std::string folder);

  void deliver(const Envelope& envelope, const PointOfNoReturn& pointOfNoReturn) override;
  std::string describe() const override { return "outbox " + folder_; }

 private:
  std::string folder_;
  std::atomic<std::uint64_t> sequence_{0};
};

}  // namespace rapport::host::mail
