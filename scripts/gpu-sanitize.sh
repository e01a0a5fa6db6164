#!/bin/sh
# On the GPU machine, after scripts/gpu-check.sh built _build: the reduced
# test matrix (CHECK_REDUCED: every method x border x 1, 3 and 4 channels x
# three masks, small odd images, plus the walks marked reduced, the
# 3x3 kernel's border cases, strips and injected faults) under each of
# compute-sanitizer's tools (TOOLS picks some: "memcheck initcheck").
# KERNELS, a regular expression, checks only the kernels it names, the rest
# running unchecked: racecheck over every kernel takes more than 5 minutes,
# KERNELS='fft_pad|fft_multiply|fft_finish' 21 s (H200).  initcheck sees
# only the writes of the kernels it checks: name the kernels that write a
# checked kernel's input too (KERNELS='wiener|source_read|source_write').
# Prints each summary; fails on any error.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
test_gpu=$top/_build/tests/test-gpu
# The checks that read data/ (the estimate's photograph) find it there.
export top_srcdir="$top"
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
status=0
for tool in ${TOOLS:-memcheck racecheck initcheck synccheck}; do
  extra=""
  [ "$tool" = memcheck ] && extra="--leak-check full"
  # initcheck does not see global memory written by tensor (TMA) stores, which
  # the register kernels use: it reported every copy of their results to the
  # host as uninitialized, and did the same for a 1 KB buffer written by one
  # tensor store whose copy held the right values (compute-sanitizer, CUDA
  # 13.0, H100).  So it checks kernels' reads only; the tests, which poison
  # every output first, check that each result is written.
  [ "$tool" = initcheck ] && extra="--check-api-memory-access no"
  if [ -n "${KERNELS:-}" ]; then set -- --kernel-regex "kns=$KERNELS"; else set --; fi
  start=$(date +%s)
  CHECK_REDUCED=1 CHECK_SEED=${CHECK_SEED:-7} "$cs" --tool "$tool" $extra "$@" --error-exitcode 9 \
    "$test_gpu" >"${OUT:-.}/sanitize-$tool.log" 2>&1
  rc=$?
  echo "== $tool: exit $rc, $(( $(date +%s) - start )) s"
  grep -E 'SUMMARY|^reduced matrix|^walks|^fft tiles|^fft past|^3x3|^PASS|^FAIL' "${OUT:-.}/sanitize-$tool.log"
  [ $rc = 0 ] || { status=1; grep -m 20 -E '^=========' "${OUT:-.}/sanitize-$tool.log"; }
done
exit $status
