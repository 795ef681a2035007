// This CPU's quiet load-port speed, remembered between runs: the contention probe's loads per
// chain (measure/contention.hpp) at the quickest any earlier run on this CPU measured it. A
// run whose probe never gets near it had a busy core from its first probe to its last (an SMT
// sibling in another guest), which the run's own quickest probe cannot show.
//
// One small text file per CPU key in the cache folder: $CSUMTUNE_CACHE_DIR, else
// $XDG_CACHE_HOME/csumtune, else ~/.cache/csumtune. Remembering is a courtesy, never a
// failure: an unreadable, unwritable or garbled file is a run without a reference.
#pragma once

#include <string>

namespace csumtune::tuner {

// The file for `cpuKey`, or "" when no cache folder can be named.
std::string quietReferencePath(const std::string& cpuKey);

// The remembered ratio, or 0 when there is none (no file, or not one positive finite number).
double readQuietReference(const std::string& path);

// Keeps the lower of the remembered ratio and `loadsPerChain` (0 or less: nothing to keep).
// Creates the folder; returns false (and leaves any earlier file whole) when it cannot write.
bool rememberQuietReference(const std::string& path, double loadsPerChain);

}  // namespace csumtune::tuner
