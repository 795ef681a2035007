// Waiting for a child process that runs code csumtune does not trust (a tree's file, a moved
// copy of a kernel): polled, so that a deadline and a stop request are seen while it runs; a
// child past either is killed (with its process group when it has one) and reaped.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <string>

namespace csumtune::tuner {

struct ChildWait {
  enum class End {
    Finished,  // `status` is its wait status
    Late,      // the deadline passed: killed
    Stopped,   // *stop was set: killed
    Lost,      // waitpid failed
  } end = End::Finished;
  int status = 0;
};

// `group`: the child leads a process group of its own, and the whole group is killed.
ChildWait waitForChild(pid_t pid, double seconds, bool group = false,
                       const volatile std::sig_atomic_t* stop = nullptr);

// How a child ended, in words: "exit status 3", "signal 11 (Segmentation fault)".
std::string describeChildEnd(int status);

}  // namespace csumtune::tuner
