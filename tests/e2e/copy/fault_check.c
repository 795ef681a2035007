/*
 * Runs a kernel-style copying kernel (csumtune emit --style kernel with kind=copy: __wsum
 * csum_partial_copy_generic(const void *src, void *dst, int len)) in user space, with its
 * exception table honoured the way the kernel honours it: a SIGSEGV whose instruction is in
 * the table resumes at that entry's fixup (the stand-in <asm/asm.h> collects the table).
 *
 * Checks, through a caller that plants known values in every callee-saved register:
 *  - success: every length 0..300 and long ones, at source and destination alignments 0..7,
 *    with inaccessible pages right after both buffers: the copy exact, the sum equal to a
 *    plain sum started from 0xffffffff and never 0, no byte written outside the destination;
 *  - faults: the same lengths with the source, then the destination, running into an
 *    inaccessible page at many points: the call returns 0, only faulting instructions listed
 *    in the table ever fault, callee-saved registers and the stack pointer come back intact.
 * Exit 0 when all agree.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

uint32_t csum_partial_copy_generic(const void* src, void* dst, int len);

struct extable_entry {
  uint64_t insn, fixup;
};
extern const struct extable_entry __start_csumtune_extable[], __stop_csumtune_extable[];

static volatile long faults_taken;

static void on_segv(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)info;
  ucontext_t* uc = context;
  const uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  for (const struct extable_entry* e = __start_csumtune_extable; e < __stop_csumtune_extable; ++e) {
    if (e->insn == rip) {
      uc->uc_mcontext.gregs[REG_RIP] = (greg_t)e->fixup;
      ++faults_taken;
      return;
    }
  }
  static const char msg[] = "fault_check: a fault at an instruction without a table entry\n";
  write(2, msg, sizeof msg - 1);
  _exit(3);
}

/* checked_call(src, dst, len): calls the kernel with rbx, rbp, r12..r15 set to known values;
 * afterwards `clobbered` is nonzero if any of them, or rsp, came back changed. */
uint32_t checked_call(const void* src, void* dst, int len);
long clobbered;
__asm__(
    ".text\n"
    ".globl checked_call\n"
    "checked_call:\n"
    "  push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
    "  sub $8, %rsp\n"
    "  movabs $0x1111111111111111, %rbx\n movabs $0x2222222222222222, %rbp\n"
    "  movabs $0x3333333333333333, %r12\n movabs $0x4444444444444444, %r13\n"
    "  movabs $0x5555555555555555, %r14\n movabs $0x6666666666666666, %r15\n"
    "  mov %rsp, saved_rsp(%rip)\n"
    "  call csum_partial_copy_generic\n"
    "  xor %ecx, %ecx\n"
    "  cmp saved_rsp(%rip), %rsp\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x1111111111111111, %rdx\n cmp %rdx, %rbx\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x2222222222222222, %rdx\n cmp %rdx, %rbp\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x3333333333333333, %rdx\n cmp %rdx, %r12\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x4444444444444444, %rdx\n cmp %rdx, %r13\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x5555555555555555, %rdx\n cmp %rdx, %r14\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  movabs $0x6666666666666666, %rdx\n cmp %rdx, %r15\n setne %cl\n or %rcx, clobbered(%rip)\n"
    "  add $8, %rsp\n"
    "  pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
    "  ret\n"
    ".data\n"
    "saved_rsp: .quad 0\n"
    ".text\n");

static uint16_t fold(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}

static uint16_t reference(const uint8_t* p, int len) {
  uint64_t s = 0xffffffffu;
  int i = 0;
  for (; i + 1 < len; i += 2) s += (uint32_t)(p[i] | (p[i + 1] << 8));
  if (i < len) s += p[i];
  return fold(s);
}

enum { kMaxLen = 70000, kPage = 4096 };

/* `bytes` of read-write memory ending exactly where an inaccessible page begins. */
static uint8_t* before_guard(size_t bytes) {
  const size_t span = (bytes + kPage - 1) / kPage * kPage;
  uint8_t* base =
      mmap(NULL, span + kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base + span, kPage, PROT_NONE) != 0) {
    perror("mmap");
    exit(2);
  }
  return base + span; /* the guard page */
}

static int failures, cases;
static void expect(int ok, const char* what, int len, int a, int b) {
  ++cases;
  if (!ok && failures++ < 8) fprintf(stderr, "%s: len=%d %d %d\n", what, len, a, b);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);

  uint8_t* src_end = before_guard(kMaxLen + 64);
  uint8_t* dst_end = before_guard(kMaxLen + 64);
  uint8_t* src_base = src_end - (kMaxLen + 64);
  uint32_t x = 2463534242u;
  for (int i = 0; i < kMaxLen + 64; ++i)
    src_base[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);

  static const int longs[] = {1500, 4095, 4096, 9000, 65536, 70000};
  enum { kShort = 301, kLens = kShort + sizeof longs / sizeof longs[0] };
  for (int n = 0; n < kLens; ++n) {
    const int len = n < kShort ? n : longs[n - kShort];
    /* Success: source and destination end 0..7 bytes before their guard pages. */
    for (int a = 0; a < 8; ++a) {
      const int b = (a * 5 + 3) % 8;
      const uint8_t* src = src_end - len - a;
      uint8_t* dst = dst_end - len - b;
      memset(dst - 64, 0xa5, (size_t)len + 64 + b);
      const uint32_t got = checked_call(src, dst, len);
      int outside = 0;
      for (int i = 1; i <= 64; ++i) outside |= dst[-i] != 0xa5;
      for (int i = 0; i < b; ++i) outside |= dst[len + i] != 0xa5;
      expect(got != 0 && fold(got) % 0xffff == reference(src, len) % 0xffff &&
                 memcmp(dst, src, (size_t)len) == 0 && !outside,
             "success: wrong sum or copy", len, a, b);
    }
    if (len == 0) continue;
    /* Faults: only `k` bytes of the source (then of the destination) are accessible. */
    const int points[] = {0,   1,   2,   3,    7,    8,    9,     15,      16,     17,
                          31,  32,  33,  39,   40,   63,   64,    65,      127,    128,
                          129, 255, 256, 1499, 4096, 8191, 65535, len / 2, len - 1};
    for (size_t p = 0; p < sizeof points / sizeof points[0]; ++p) {
      const int k = points[p];
      if (k >= len) continue;
      const long before = faults_taken;
      uint32_t got = checked_call(src_end - k, dst_end - len - 8, len);
      expect(got == 0 && faults_taken == before + 1, "source fault: not 0", len, k, 0);
      got = checked_call(src_base, dst_end - k, len);
      expect(got == 0 && faults_taken == before + 2, "destination fault: not 0", len, k, 1);
    }
  }
  expect(clobbered == 0, "callee-saved register or stack pointer changed", 0, 0, 0);
  printf("%d cases (%ld faults taken through the exception table), %d wrong\n", cases,
         (long)faults_taken, failures);
  return failures != 0;
}
