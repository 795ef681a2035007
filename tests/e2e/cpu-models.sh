#!/usr/bin/env bash
# CPUs this machine is not: csumtune under qemu-user with CPU models whose CPUID really lacks
# features (not CSUMTUNE_DISABLE_FEATURES). For each model: `cpu` reports what the model has;
# every carry family verifies when its features are there and is refused (exit 2, never
# SIGILL) when they are not; best() falls back for a CPU without results; a representative
# subset of the unit suites passes. TCG has no AVX-512: those families run on the host only.
#
#   tests/e2e/cpu-models.sh CSUMTUNE UNIT_TESTS
set -uo pipefail
CSUMTUNE=${1:?usage: cpu-models.sh CSUMTUNE UNIT_TESTS}
TESTS=${2:?}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/packages.sh"
ensure_packages cpu-models qemu-user
# model: the features it has among ADX, AVX2, AVX512F
# Three models cover the feature sets the families need (none; AVX2 without ADX; ADX and
# AVX2) and both vendors. Broadwell (Intel with ADX) is emit.library's.
declare -A HAS=([Westmere]="" [Haswell]="AVX2" [EPYC-Rome]="ADX AVX2")
declare -A FAMILY=([adc]="" [add32]="" [cmov]="" [adcx]="ADX" [avx2]="AVX2" [avx512]="AVX512F"
                   [avx512vnni]="AVX512F")
declare -A SHAPE=([adc]="chains=4,unroll=16" [add32]="chains=4,unroll=8" [cmov]="chains=3,unroll=9"
                  [adcx]="chains=4,unroll=16" [avx2]="chains=2,unroll=4" [avx512]="chains=2,unroll=4"
                  [avx512vnni]="chains=2,unroll=4")
# emit_all: emit of every family, gas style, on the model (needs no feature: nothing runs).
emit_all() {
  local family
  for family in "${!FAMILY[@]}"; do
    "${run[@]}" "$CSUMTUNE" emit --style gas --params "carry=$family" >/dev/null 2>&1 || return 1
  done
}
for model in Westmere Haswell EPYC-Rome; do
  run=(qemu-x86_64 -cpu "$model")
  features=$("${run[@]}" "$CSUMTUNE" cpu 2>&1 | sed -n 's/^features *//p')
  for f in ADX AVX2 AVX512F; do
    want="-$f"
    [[ " ${HAS[$model]} " == *" $f "* ]] && want="+$f"
    check "$model: cpu reports $want" grep -q -- "$want" <<<"$features"
  done
  for family in "${!FAMILY[@]}"; do
    need=${FAMILY[$family]}
    verify=("${run[@]}" "$CSUMTUNE" verify --quick --params "carry=$family,${SHAPE[$family]},tail=overlap,sum=last,exact=40")
    if [[ -z $need || " ${HAS[$model]} " == *" $need "* ]]; then
      expect --output --as "$model: carry=$family verifies" 0 -- "${verify[@]}"
    else
      expect --output --as "$model: carry=$family refused, not run" 2 "needs $need" -- "${verify[@]}"
    fi
  done
  # The AVX2 middle path (mid=N, vpmaskmovd) against the guard pages on the model.
  # The madd vector sum (vpmaddwd, what the space searches); its middle path's masked load is
  # the halves form's too, whose loop the per-family check above runs.
  verify=("${run[@]}" "$CSUMTUNE" verify --quick --params "carry=avx2,chains=2,unroll=4,mid=256,bounds=aligned,vsum=madd")
  if [[ " ${HAS[$model]} " == *" AVX2 "* ]]; then
    expect --output --as "$model: carry=avx2,vsum=madd with mid verifies" 0 -- "${verify[@]}"
  else
    expect --output --as "$model: carry=avx2,vsum=madd with mid refused, not run" 2 "needs AVX2" -- "${verify[@]}"
  fi
  # The command line on that CPU: emit needs no feature (nothing runs), bench refuses what
  # cannot run and measures what can.
  check "$model: emit of every family" emit_all
  out=$("${run[@]}" "$CSUMTUNE" bench --params carry=adc --sizes 64 --repeat 5 --batch 1000 2>&1)
  check "$model: bench runs (status $?)" contains "$out" "median"
  out=$("${run[@]}" "$CSUMTUNE" bench --params carry=avx512 --sizes 64 --repeat 5 --batch 1000 2>&1)
  check "$model: bench refuses avx512 (${out:0:60})" contains "$out" "needs AVX512F"
  # No results for this CPU: best() falls back to the safe default and says so; the runtime
  # and loader suites, a correctness subset, and the emitter's byte identity all pass.
  # (What does not depend on the CPU runs on one model: the loader's refusals of malformed
  # files, and the emitter's byte identity. The middle-path stage's decisions on a replayed
  # table depend on no CPU either and run on the host, plain and under ASan.)
  # The slowest replayed tunes under TCG run on the model without ADX or AVX2 only, where a
  # winner that needs either would show.
  subset='Runtime.*:LoaderTest.*:Params*:OutputFiles.*:Tune*'
  subset+=':-Tune.ASimdWinnersMiddlePathIsDecidedPerCall*'
  if [[ $model == Westmere ]]; then
    subset=${subset/Params\*/Params*:LinkedKernels.GnuAsBytesEqualJitBytes}
  else
    subset+=':LoaderTest.RefusesEveryMalformedFieldByName'
    subset+=':Tune.TheWinnerGoesWhereItLosesLeast*:Tune.FinalistsTheProfileCannotTellApart*'
    subset+=':Tune.TheGuardMeasuresAFewLossesAgain*'
  fi
  check "$model: unit subset" "${run[@]}" "$TESTS" --gtest_brief=1 --gtest_filter="$subset"
done
finish
