/* Compiles one kernel of every carry family through the C API and checks it against a
 * reference written here, over lengths 0..2048 at several alignments and initial sums. */
#include <csumtune/csumtune.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t residue(uint64_t s) {
  return (uint32_t)(s % 0xffff);
}

static uint32_t reference(const uint8_t* p, int len, uint32_t sum) {
  uint64_t total = sum;
  int i = 0;
  for (; i + 1 < len; i += 2) total += (uint32_t)p[i] | ((uint32_t)p[i + 1] << 8);
  if (i < len) total += p[i];
  return residue(total);
}

int main(void) {
  static const char* shapes[] = {
      "carry=adc,chains=4,unroll=16,prefetch=256,hint=t0",
      "carry=adcx,chains=2,unroll=8",
      "carry=add32,chains=3,unroll=9,prefetch=64,hint=nta",
      "carry=cmov,chains=8,unroll=16,hint=t1",
      "carry=avx2,chains=2,unroll=6,prefetch=128",
      "carry=avx512,chains=4,unroll=8",
      "carry=avx512vnni,chains=3,unroll=12,prefetch=2496,hint=t2",
  };
  static const uint32_t sums[] = {0, 0xffffffffu, 0x80000000u, 12345};
  uint8_t* data = malloc(2048 + 64);
  if (!data) return 1;
  uint32_t x = 1;
  for (int i = 0; i < 2048 + 64; i++) data[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);

  int failures = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    char err[256];
    csumtune_kernel* k = csumtune_compile(shapes[s], err, sizeof err);
    if (!k) {
      printf("skip  %s: %s\n", shapes[s], err);
      continue;
    }
    csumtune_fn fn = csumtune_kernel_fn(k);
    long checks = 0;
    for (int off = 0; off < 8; off++)
      for (int len = 0; len <= 2048; len++)
        for (size_t j = 0; j < 4; j++, checks++) {
          uint32_t got = residue(csumtune_fold(fn(data + off, len, sums[j])));
          if (got != reference(data + off, len, sums[j])) {
            if (failures++ < 5) printf("FAIL  %s len=%d off=%d\n", shapes[s], len, off);
          }
        }
    if (csumtune_kernel_size(k) == 0) {
      printf("FAIL  %s has no size\n", shapes[s]);
      failures++;
    }
    printf("ok    %s (%zu bytes, %ld checks)\n", csumtune_kernel_params(k), csumtune_kernel_size(k),
           checks);
    csumtune_kernel_free(k);
  }
  char err[256];
  if (csumtune_compile("carry=adcx,chains=3", err, sizeof err) != NULL) failures++;
  printf("bad params refused: %s\n", err);
  free(data);
  return failures ? 1 : 0;
}
