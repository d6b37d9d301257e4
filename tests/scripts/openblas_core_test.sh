#!/usr/bin/env bash
# bench/openblas_core.sh's choice of OpenBLAS kernels, held to CPUs whose answer is known:
# a wrong mapping would put the OpenBLAS and LibTorch baselines on kernels slower than the CPU
# runs (or on ones it cannot run), and every ratio against them would be wrong.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../bench/openblas_core.sh"
fail=0
expect() {  # expect WANTED VENDOR FLAGS...
  local wanted=$1 vendor=$2; shift 2
  local got; got=$(openblas_core_for_flags "$*" "$vendor")
  if [ "$got" != "$wanted" ]; then echo "FAIL: $vendor [$*]: got '$got', expected '$wanted'"; fail=1
  else echo "ok: $vendor -> ${got:-(none)}"; fi
}
avx2="sse sse2 ssse3 sse4_1 sse4_2 avx fma avx2 bmi2"
avx512="$avx2 avx512f avx512dq avx512cd avx512bw avx512vl"
# Intel Xeon model 207 (this project's machine of stop 94): AVX-512 with BF16.
expect Cooperlake GenuineIntel "$avx512 avx512_vnni avx512_bf16 amx_tile"
expect SkylakeX GenuineIntel "$avx512 avx512_vnni"          # Skylake-SP / Cascade Lake
expect SkylakeX AuthenticAMD "$avx512"                      # an AVX-512 CPU without BF16, either vendor
expect Zen AuthenticAMD "$avx2"                              # Zen 3 (stops 88-93)
expect Haswell GenuineIntel "$avx2"
expect "" GenuineIntel "sse sse2 ssse3 avx"                  # AVX without FMA/AVX2: leave it to OpenBLAS
# A flag that only starts like a needed one must not count (avx512fp16 is not avx512f).
expect Haswell GenuineIntel "$avx2 avx512fp16 avx512bwx avx512vlx avx512dqx avx512cdx"
exit $fail
