// This CPU's quiet load-port speed, remembered between runs: the contention probe's loads per
// chain (measure/contention.hpp) at the quickest any earlier run on this CPU measured it. A
// run whose probe never gets near it had a busy core from its first probe to its last (an SMT
// sibling in another guest), which the run's own quickest probe cannot show.
//
// One small text file per CPU key (and, on a hybrid CPU, core type) in the cache folder:
// $CSUMTUNE_CACHE_DIR, else $XDG_CACHE_HOME/csumtune, else ~/.cache/csumtune. Remembering is
// a courtesy, never a failure: an unreadable, unwritable, garbled or implausibly quick
// figure is a run without a reference, and only a regular file is ever replaced.
#pragma once

#include <string>

#include "measure/contention.hpp"

namespace csumtune::tuner {

// The file for `cpuKey` and the core this thread runs on (call it pinned), or "" when no
// cache folder can be named.
std::string quietReferencePath(const std::string& cpuKey);

// The remembered ratio, or 0 when there is none (no regular file, or not one plausible
// number).
double readQuietReference(const std::string& path);

// Keeps the lower of the remembered ratio and `loadsPerChain` (an implausible figure, 0
// among them, is not kept). Creates the folder; returns false (and leaves any earlier file
// whole) when it cannot or must not write.
bool rememberQuietReference(const std::string& path, double loadsPerChain);

// The remembered figure for `cpuKey` and its file, into the settings a run's monitor takes.
void useQuietReference(ContentionSettings& settings, const std::string& cpuKey);

}  // namespace csumtune::tuner
