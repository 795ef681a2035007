/* The dispatched csum_partial of an ahead-of-time csumtune library against a plain reference,
 * over the verification plan: every length 0..1024 at every alignment 0..63; every length
 * right against a guard page after the buffer and right after one before it; long lengths;
 * negative lengths with an unreadable pointer. Random, all-0xff and all-0x00 data; initial
 * sums 0, 0xffffffff, random and random >= 2^31. Also checks the process maps no memory both
 * writable and executable (the library needs no JIT).
 *
 *   harness [EXPECTED_VARIANT]   prints the body picked; exit 0 when every sum is right (and
 *                                the body is the one expected), 1 otherwise.
 *
 * Built with a plain C compiler against the library folder (-I DIR, DIR/libcsumtune_library.a). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csumtune_library.h"

enum { MAX_LEN = 1024, ALIGNMENTS = 64, LONG_MAX_LEN = 65536 };
enum { PATTERN_RANDOM, PATTERN_ONES, PATTERN_ZEROS, PATTERNS };

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}

static uint32_t sums[4];
static long calls, failures;

/* The 16-bit ones'-complement value of a 32- or 64-bit sum; 0 and 0xffff are one value. */
static uint32_t fold16(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return s == 0xffff ? 0 : (uint32_t)s;
}

/* sum + the little-endian 16-bit words of buf[0..len), an odd last byte the low byte. */
static uint32_t reference(const unsigned char* buf, int len, uint32_t sum) {
  uint64_t s = sum;
  for (int i = 0; i < len; i++) s += (uint64_t)buf[i] << (8 * (i & 1));
  return fold16(s);
}

static void check(const unsigned char* buf, int len, uint32_t sum, uint32_t want,
                  const char* where) {
  uint32_t got = csum_partial(buf, len, sum);
  calls++;
  if (fold16(got) != want) {
    if (failures++ < 10)
      fprintf(stderr,
              "wrong sum (%s): len %d at %p, sum 0x%08x: got 0x%08x (folded %04x), want %04x\n",
              where, len, (const void*)buf, sum, got, fold16(got), want);
  }
}

static void fill(unsigned char* p, size_t n, int pattern) {
  for (size_t i = 0; i < n; i++)
    p[i] = pattern == PATTERN_ONES    ? 0xff
           : pattern == PATTERN_ZEROS ? 0
                                      : (unsigned char)next_random();
}

/* Three pages: a guard, two readable pages, and (mapped after) a guard. */
static unsigned char* map_guarded(size_t page, size_t readable) {
  unsigned char* base =
      mmap(NULL, readable + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  if (mprotect(base, page, PROT_NONE) || mprotect(base + page + readable, page, PROT_NONE)) {
    perror("mprotect");
    exit(2);
  }
  return base + page;
}

/* Every length at every alignment: the reference grows with the length, one byte at a time. */
static void every_length_and_alignment(unsigned char* area, int pattern) {
  fill(area, MAX_LEN + ALIGNMENTS + 64, pattern);
  for (int align = 0; align < ALIGNMENTS; align++) {
    const unsigned char* buf = area + align;
    uint64_t words = 0;
    for (int len = 0; len <= MAX_LEN; len++) {
      const uint32_t sum = sums[(align + len) % 4];
      check(buf, len, sum, fold16(words + sum), "every length and alignment");
      words += (uint64_t)buf[len] << (8 * (len & 1));
    }
  }
}

/* Every length ending right at the trailing guard page, and starting right after the leading
 * one: a read past either end faults. */
static void against_guard_pages(unsigned char* readable, size_t size, int pattern) {
  fill(readable, size, pattern);
  for (int len = 0; len <= MAX_LEN; len++) {
    for (int s = 0; s < 4; s++) {
      const unsigned char* end = readable + size - len;
      check(end, len, sums[s], reference(end, len, sums[s]), "against the guard page after");
      check(readable, len, sums[s], reference(readable, len, sums[s]),
            "after the guard page before");
    }
  }
}

static void long_lengths(unsigned char* readable, size_t size) {
  static const int lengths[] = {1500, 1501, 2048, 4095, 4096, 9000, 16383, 32768, 65535, 65536};
  fill(readable, size, PATTERN_RANDOM);
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    for (int align = 0; align < 64; align += 9) {
      const unsigned char* buf = readable + size - lengths[i] - align;
      check(buf, lengths[i], sums[i % 4], reference(buf, lengths[i], sums[i % 4]), "long");
    }
  }
}

/* len <= 0 reads nothing: the pointer is unreadable. */
static void negative_lengths(const unsigned char* unreadable) {
  static const int lengths[] = {0, -1, -2, -64, -1500, -2147483647 - 1};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
    for (int s = 0; s < 4; s++) check(unreadable, lengths[i], sums[s], fold16(sums[s]), "negative");
}

/* Any mapping both writable and executable (a JIT's code heap) fails the check. */
static int writable_executable_mappings(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (!maps) return 0;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, maps)) {
    char perms[5] = {0};
    if (sscanf(line, "%*s %4s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x') {
      fprintf(stderr, "writable and executable memory: %s", line);
      found++;
    }
  }
  fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  const char* variant = csum_partial_variant();
  printf("variant %s\n", variant);
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t size = ((LONG_MAX_LEN + 2 * ALIGNMENTS + page - 1) / page) * page;
  unsigned char* readable = map_guarded(page, size);
  sums[0] = 0;
  sums[1] = 0xffffffffu;
  sums[2] = next_random() | 0x80000000u;
  sums[3] = next_random();
  for (int pattern = 0; pattern < PATTERNS; pattern++) {
    every_length_and_alignment(readable, pattern);
    against_guard_pages(readable, size, pattern);
  }
  long_lengths(readable, size);
  negative_lengths(readable - page);
  int status = failures ? 1 : 0;
  printf("%ld calls, %ld wrong\n", calls, failures);
  if (writable_executable_mappings()) status = 1;
  if (argc > 1 && strcmp(argv[1], variant) != 0) {
    fprintf(stderr, "picked %s, expected %s\n", variant, argv[1]);
    status = 1;
  }
  return status;
}
