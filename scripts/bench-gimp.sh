#!/bin/sh
# The GIMP-level benchmark: builds, then times plug-in-cuda-convolve against
# GIMP's built-in Convolution Matrix in one GIMP run (bench/gimp-bench.py).
# BENCH_SIZE (default 4096) and BENCH_RUNS (default 5) change it.  The
# GEGL operation is where GEGL looks (run-gimp.sh), so the procedure applies
# through it.
set -eu
cd "$(dirname "$0")/.."
exec scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" BENCH_SIZE="${BENCH_SIZE:-4096}" \
  BENCH_RUNS="${BENCH_RUNS:-5}" ${GEGL_THREADS:+GEGL_THREADS=$GEGL_THREADS} sh -c \
  'scripts/build.sh >/dev/null &&
   scripts/run-gimp.sh python-fu-eval "exec(open(\"bench/gimp-bench.py\").read())"'
