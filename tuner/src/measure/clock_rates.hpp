// What one timer unit is worth on this machine, so that figures from two hosts with the same
// CPU (whose TSCs may run at different rates) can be compared: the TSC's frequency, and core
// cycles per TSC tick, measured with a chain of dependent one-cycle additions (no PMU
// needed). bytes per core cycle = bytes / (ticks * cyclesPerUnit).
#pragma once

#include <string>

#include "measure/timer.hpp"

namespace csumtune::tuner {

struct ClockRates {
  double tscHz = 0;          // TSC ticks per second (measured against CLOCK_MONOTONIC)
  double cyclesPerUnit = 0;  // core cycles per timer unit (1 when the unit is cycles)
  double coreHz() const { return tscHz * cyclesPerUnit; }
};

// Takes tens of milliseconds (three 10 ms windows against the wall clock, then the add
// chains). Pin to the measured CPU first.
ClockRates measureClockRates(Timer& timer);

}  // namespace csumtune::tuner
