/* SPDX-License-Identifier: MIT */
/*
 * What the dispatch costs: csum_partial called through its GNU IFUNC (the linker's PLT
 * entry jumps through a GOT slot the resolver filled) against a direct call of the body the
 * resolver picked (DIRECT, a hidden symbol of the archive, which a static link of the archive
 * still sees). Both loops chain each call's sum into the next, as a stack does; rounds
 * alternate which goes first. Prints medians per call in TSC ticks and the median of the
 * per-round differences with its spread (MAD). Not a test: scripts/dispatch-cost.sh runs it.
 *
 *   dispatch_cost CPU ROUNDS LEN...
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "csumtune_library.h"

#ifndef DIRECT
#error "build with -DDIRECT=<the body's symbol>"
#endif
uint32_t DIRECT(const void *buf, int len, uint32_t sum);

enum { CALLS = 2000 };
static volatile uint32_t sink;

/* The two loops must be the same code but for the call: one macro makes both. */
#define TIMED_LOOP(name, callee)                                           \
  __attribute__((noinline)) static uint64_t name(const uint8_t *buf, int len) { \
    uint32_t sum = 0;                                                      \
    _mm_lfence();                                                          \
    const uint64_t start = __rdtsc();                                      \
    _mm_lfence();                                                          \
    for (int i = 0; i < CALLS; i++) sum = callee(buf, len, sum);           \
    _mm_lfence();                                                          \
    const uint64_t ticks = __rdtsc() - start;                              \
    sink = sum;                                                            \
    return ticks;                                                          \
  }
TIMED_LOOP(through_ifunc, csum_partial)
TIMED_LOOP(direct, DIRECT)

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double mad(const double *v, int n, double center, double *scratch) {
  for (int i = 0; i < n; i++) scratch[i] = v[i] > center ? v[i] - center : center - v[i];
  return median(scratch, n);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: dispatch_cost CPU ROUNDS LEN...\n");
    return 2;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(atoi(argv[1]), &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    return 2;
  }
  const int rounds = atoi(argv[2]);
  if (rounds < 11 || rounds > 1000000) {
    fprintf(stderr, "ROUNDS: 11..1000000\n");
    return 2;
  }
  static uint8_t buffer[65536 + 64] __attribute__((aligned(64)));
  for (size_t i = 0; i < sizeof buffer; i++) buffer[i] = (uint8_t)(i * 131 + 7);
  double *a = malloc(sizeof(double) * (size_t)rounds), *b = malloc(sizeof(double) * (size_t)rounds);
  double *d = malloc(sizeof(double) * (size_t)rounds), *s = malloc(sizeof(double) * (size_t)rounds);
  if (!a || !b || !d || !s) return 2;
  printf("variant %s; %d rounds of %d chained calls; TSC ticks per call\n", csum_partial_variant(),
         rounds, CALLS);
  printf("%7s %10s %10s %12s %10s\n", "length", "direct", "ifunc", "ifunc-direct", "MAD");
  for (int arg = 3; arg < argc; arg++) {
    const int len = atoi(argv[arg]);
    if (len < 1 || len > 65536) {
      fprintf(stderr, "LEN: 1..65536\n");
      return 2;
    }
    for (int w = 0; w < 50; w++) (void)(through_ifunc(buffer, len) + direct(buffer, len));
    for (int r = 0; r < rounds; r++) {
      double x, y;
      if (r % 2) {
        x = (double)direct(buffer, len);
        y = (double)through_ifunc(buffer, len);
      } else {
        y = (double)through_ifunc(buffer, len);
        x = (double)direct(buffer, len);
      }
      a[r] = x / CALLS;
      b[r] = y / CALLS;
      d[r] = (y - x) / CALLS;
    }
    const double diff = median(d, rounds);
    const double spread = mad(d, rounds, diff, s);
    printf("%7d %10.2f %10.2f %12.2f %10.2f\n", len, median(a, rounds), median(b, rounds), diff,
           spread);
  }
  return 0;
}
