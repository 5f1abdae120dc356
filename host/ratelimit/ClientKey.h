// The key every per-address limit counts a client by: the general rate limit
// for requests without a token (and for public routes), the login throttle,
// forgot-password and the two-factor endpoints. One function, so that every
// count agrees on who "one client" is.
//
//   IPv4                  as is, in dotted decimal ("192.0.2.7")
//   IPv4-mapped IPv6      the IPv4 address ("::ffff:192.0.2.7" -> "192.0.2.7"),
//                         so a dual-stack socket counts an IPv4 client once
//   any other IPv6        its /64 prefix in canonical text (RFC 5952, the
//                         host part zeroed): "2001:db8:0:1:2:3:4:5" and
//                         "2001:DB8::1:ff:0:0:1" both -> "2001:db8:0:1::/64"
//   anything else         unchanged (the socket layer only hands us
//                         addresses; a name or a path is its own key)
//
// Why /64: an IPv6 subscriber is normally given at least a /64 and picks the
// low 64 bits freely (privacy addresses change them daily), so counting
// per address would give one client 2^64 fresh budgets. A /64 is the
// smallest prefix one subscriber cannot leave; larger prefixes (/56, /48)
// would start to lump unrelated subscribers together.
//
// A scope ("fe80::1%eth0") and brackets ("[2001:db8::1]") are tolerated and
// dropped.
#pragma once

#include <string>
#include <string_view>

namespace rapport::host {

std::string clientKey(std::string_view address);

}  // namespace rapport::host
