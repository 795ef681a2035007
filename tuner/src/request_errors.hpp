// The two ways a library call of the tuner refuses or fails, which the command line turns into
// its exit statuses (2 and 1) and a program calling the library can tell apart.
#pragma once

#include <stdexcept>

namespace csumtune::tuner {

// Bad usage or bad input (an option, a file, a request the call cannot carry out as asked):
// nothing was done. Exit status 2 on the command line.
class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A check failed (a wrong checksum, a winner that is not faster as required): the details are
// in the message or already printed. Exit status 1 on the command line.
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace csumtune::tuner
