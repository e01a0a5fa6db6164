#!/bin/sh
# The GIMP-level benchmark: builds, then times cuda:convolve and
# plug-in-cuda-convolve against GIMP's built-in Convolution Matrix in one
# GIMP run (bench/gimp-bench.py), then the first calls of three sessions of
# their own: the op's, the op's without a GPU, and the built-in's (what a
# first call costs GIMP itself).  BENCH_SIZE (default 4096) and BENCH_RUNS
# (default 5) change it; BENCH_BUILD=0 takes the build in _build as it is;
# BENCH_ONLY=masks times only shapes, a layer and a random 127x127 against
# box-5, in one session.
# Where GIMP 3 is on the path (natively, or inside the root: the GPU
# machine's bundle runs it there) it runs directly, else in the root
# (scripts/env.sh).  The GEGL operation is where GEGL looks (run-gimp.sh),
# so the procedure applies through it.
set -eu
cd "$(dirname "$0")/.."
export BENCH_SIZE="${BENCH_SIZE:-4096}" BENCH_RUNS="${BENCH_RUNS:-5}"
where=scripts/env.sh
scripts/gimp-console.sh >/dev/null && where=
[ "${BENCH_BUILD:-1}" = 0 ] || $where env CUDA_ARCH="${CUDA_ARCH:-}" scripts/build.sh >/dev/null
bench='exec(open("bench/gimp-bench.py").read())'
gimp () { $where env BENCH_SIZE="$BENCH_SIZE" BENCH_RUNS="$BENCH_RUNS" \
  ${GEGL_THREADS:+GEGL_THREADS=$GEGL_THREADS} ${BENCH_ONLY:+BENCH_ONLY=$BENCH_ONLY} "$@" \
  scripts/run-gimp.sh python-fu-eval "$bench"; }
gimp
[ -z "${BENCH_ONLY:-}" ] || exit 0
gimp BENCH_FIRST=op | grep '^first calls'
gimp BENCH_FIRST=op CUDA_CONVOLVE_NO_GPU=1 | grep '^first calls'
gimp BENCH_FIRST=builtin | grep '^first calls'
