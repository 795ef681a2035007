/*
 * Links a copying kernel emitted as GNU assembler text (csumtune emit --style gas with
 * kind=copy: uint32_t csum_and_copy(const void *src, void *dst, int len, uint32_t sum)) and
 * checks it as a C caller would: the copy exact, the bytes around the destination untouched,
 * the sum equal to a plain 16-bit-word sum, for every length 0..300 and some long ones, at
 * a spread of source and destination alignments. Exit 0 when all agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

uint32_t csum_and_copy(const void* src, void* dst, int len, uint32_t sum);

static uint16_t fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}

static uint16_t reference(const uint8_t* p, int len, uint32_t sum) {
  uint64_t s = sum;
  int i = 0;
  for (; i + 1 < len; i += 2) s += (uint32_t)(p[i] | (p[i + 1] << 8));
  if (i < len) s += p[i];
  return fold(s);
}

static uint8_t src[70000 + 128], dst[70000 + 256];

int main(void) {
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof src; ++i) src[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
  static const int longs[] = {1500, 4095, 4096, 9000, 65535, 65536, 70000};
  int failures = 0, checked = 0;
  for (int n = 0; n < 301 + 7; ++n) {
    const int len = n < 301 ? n : longs[n - 301];
    for (int a = 0; a < 64; a += (len > 300 ? 13 : 3)) {
      const int s_off = a, d_off = 64 + (a * 7 + 5) % 64;
      memset(dst, 0xa5, sizeof dst);
      const uint32_t sum = (uint32_t)(len * 2654435761u);
      const uint32_t got = csum_and_copy(src + s_off, dst + d_off, len, sum);
      int bad = fold(got) % 0xffff != reference(src + s_off, len, sum) % 0xffff ||
                memcmp(dst + d_off, src + s_off, (size_t)len) != 0;
      for (int i = 0; i < d_off; ++i) bad |= dst[i] != 0xa5;
      for (size_t i = (size_t)(d_off + len); i < sizeof dst; ++i) bad |= dst[i] != 0xa5;
      if (bad && failures++ < 5)
        fprintf(stderr, "len=%d src+%d dst+%d: wrong\n", len, s_off, d_off);
      ++checked;
    }
  }
  printf("%d cases, %d wrong\n", checked, failures);
  return failures != 0;
}
