// What a timed row is: a generated kernel or one of the baselines it races, as bench's
// tables, JSON and CSV name it.
#pragma once

namespace csumtune::tuner {

enum class TimedKind {
  Jit,              // a generated kernel, compiled at run time
  Linked,           // a generated kernel assembled and linked in (a tool's comparison)
  BaselineC,        // plain portable C
  BaselineLinux,    // our builds of Linux's own algorithms (linux-v6.8, linux-v5.17, csum-copy)
  BaselineOurs,     // our frame around the kernel's loop shape (linux-like)
  BaselineSource,   // a kernel tree's own file, built for user space
  BaselineTwoPass,  // memcpy, then a summing kernel
  Bound,            // the loads and stores alone: a floor, not a checksum
};

// "jit", "asm", "baseline-c", "baseline-linux", "baseline-ours", "baseline-source",
// "baseline-two-pass", "bound".
const char* toString(TimedKind kind);

}  // namespace csumtune::tuner
