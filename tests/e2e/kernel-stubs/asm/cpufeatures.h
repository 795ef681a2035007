/* Stand-in for the kernel's <asm/cpufeatures.h>: the one feature csumtune's files name. */
#ifndef CSUMTUNE_STUB_CPUFEATURES_H
#define CSUMTUNE_STUB_CPUFEATURES_H
#define X86_FEATURE_ADX (9 * 32 + 19)
#endif
