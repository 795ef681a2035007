// The author of a patch: the kernel tree's own git identity, as `git format-patch` would
// write it, and only when it is safe in a mail header.
#pragma once

#include <string>

namespace csumtune::tuner {

struct GitIdentity {
  std::string author;   // "Name <email>", or "" when there is none to use
  std::string refused;  // why a configured identity was not used ("" when none was refused)
};

// `git -C root config user.name` / `user.email`, run without a shell. An identity with a
// control character (a newline would add a header line), angle brackets in the name, or an
// address that is not one word with an @ is refused, never cleaned up into something else.
GitIdentity gitIdentity(const std::string& root);

// The same rule on given values: "" when the pair can go into From:, else why not. A bidi or
// format control (U+202E...) or bytes that are not UTF-8 are refused like a control character.
std::string identityProblem(const std::string& name, const std::string& email);

// The name as From: carries it, as git format-patch writes it: as is when plain ASCII words,
// a quoted-string (" and \ escaped) when it holds one of ()<>@,;:\".[], RFC 2047 encoded words
// (=?UTF-8?B?...?=) when not ASCII.
std::string fromHeaderName(const std::string& name);

}  // namespace csumtune::tuner
