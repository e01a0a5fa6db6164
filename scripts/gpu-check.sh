#!/bin/sh
# On a machine with an NVIDIA GPU and no GIMP: build the engine, the tool and
# their tests in _build (scripts/build.sh), run `make check`, then `make
# bench` and `make bench-host`.  Logs go to $OUT (or ./gpu-check-out).
# CUDA_ARCH picks the architecture (default sm_90); BENCH=0 skips the bench.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/gpu-check-out}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 4)

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
start=$(date +%s)
CUDA_ARCH=${CUDA_ARCH:-sm_90} "$top/scripts/build.sh" || exit 1
cp "$top/_build/configure.log" "$top/_build/build.log" "$out/"
echo "build: $(( $(date +%s) - start )) s"
cd "$top/_build"

start=$(date +%s)
make -j"$jobs" check >"$out/check.log" 2>&1
check=$?
echo "make check: $(( $(date +%s) - start )) s"
cat tests/*.log >"$out/tests.log" 2>/dev/null
grep -h 'FAIL\|^GPU\|^sweep\|^walks\|^fft tiles\|^fft past\|^3x3\|^random seed' tests/*.log | head -40
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):|^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$out/check.log"

if [ "${BENCH:-1}" = 1 ]; then
  make bench BENCH_ARGS="--markdown $out/bench.md --csv $out/bench.csv" >"$out/bench.txt" 2>&1
  grep -v '^make\|^  CC\|^  CCLD' "$out/bench.txt"
  make bench-host BENCH_ARGS="--markdown $out/bench-host.md" >"$out/bench-host.txt" 2>&1
  grep -v '^make\|^  CC\|^  CCLD' "$out/bench-host.txt"
fi
exit $check
