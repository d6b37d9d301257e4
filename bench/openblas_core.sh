# Sourced by the benchmark scripts (bench/run.sh, e2e.sh, e2e_tune.sh): puts OpenBLAS, which
# the OpenBLAS baselines and LibTorch run on, on its fastest kernels for this CPU (for every
# process they start, the tuners of e2e_tune included: their cost model trains on it too).
#
# OpenBLAS reads OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when it loads. Some machines' environment
# sets them to values that pin it to slower kernels, so both are unset. Left to itself, OpenBLAS
# 0.3.21 (bookworm) names its kernels from the CPU's family and model, and on a CPU newer than
# its table it falls back to a generic SSE3 core: on an Intel Xeon of family 6 model 207 (AVX-512,
# AMX) it chose "Prescott", and SGEMM 1024 on one thread ran at 33 GFLOP/s against 155 with
# SkylakeX or Cooperlake (bench/NOTES.md, stop 94). So when its own choice is one of those
# generic cores, the kernels are picked here from the CPU's instruction sets instead:
# Cooperlake (AVX-512 with BF16), SkylakeX (AVX-512), Zen (AMD, AVX2), Haswell (AVX2 + FMA).
# The choice is logged to stderr and exported as TESSERA_OPENBLAS_CORE for the JSON lines.
#
#   openblas_pick_core   unset the variables, then set OPENBLAS_CORETYPE only where needed

# The kernel name OpenBLAS chooses by itself in a fresh process; empty if it cannot be asked.
openblas_detected_core() {
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 - 2>/dev/null <<'EOF'
import ctypes, ctypes.util
name = ctypes.util.find_library("openblas")
if name:
    lib = ctypes.CDLL(name)
    lib.openblas_get_corename.restype = ctypes.c_char_p
    print(lib.openblas_get_corename().decode())
EOF
}

# The kernels for a CPU with these /proc/cpuinfo flags (one string) and vendor; empty when none
# applies. Pure, so that tests/scripts/openblas_core_test.sh can hold it to known CPUs.
openblas_core_for_flags() {
  local flags=" $1 " vendor=$2
  _openblas_has() { local f; for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 1; done; }
  if _openblas_has avx512f avx512bw avx512vl avx512dq avx512cd; then
    if _openblas_has avx512_bf16; then echo Cooperlake; else echo SkylakeX; fi
  elif _openblas_has avx2 fma; then
    if [ "$vendor" = AuthenticAMD ]; then echo Zen; else echo Haswell; fi
  fi
}

# The kernels for this machine's CPU.
openblas_core_for_cpu() {
  openblas_core_for_flags "$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)" \
    "$(grep -m1 '^vendor_id' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
}

openblas_pick_core() {
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
  local detected wanted
  detected=$(openblas_detected_core || true)
  export TESSERA_OPENBLAS_CORE="$detected"
  case "${detected,,}" in
    prescott | katmai | coppermine | northwood | banias | core2 | penryn | dunnington | nehalem | atom | generic) ;;
    *) return 0 ;;  # OpenBLAS knows this CPU (or could not be asked): its own choice stands
  esac
  wanted=$(openblas_core_for_cpu || true)
  [ -n "$wanted" ] || return 0
  echo "openblas: it chose the generic $detected kernels on this CPU ($(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk -F': *' '$1 ~ /^cpu family/ {f = $2} $1 ~ /^model[ \t]*$/ {m = $2} END {print "family " f " model " m}' /proc/cpuinfo)); using OPENBLAS_CORETYPE=$wanted, which its instruction sets run" >&2
  export OPENBLAS_CORETYPE="$wanted"
  export TESSERA_OPENBLAS_CORE="$wanted"
}
