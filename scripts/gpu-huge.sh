#!/bin/sh
# On the GPU machine, after scripts/gpu-check.sh built _build: a
# 30000x30000 RGB float PFM (10.8 GB) through the tool under a 4 GB device
# budget (in strips), then in one strip (no budget, no pipelining); the two
# outputs must be identical (sha256).
# Prints wall time, engine time, strips and peak host memory of each run.
# HUGE_DIR (default /tmp/huge, needs ~33 GB) and HUGE_SIZE change the setup.
set -eu
dir=${HUGE_DIR:-/tmp/huge}
size=${HUGE_SIZE:-30000}
tool=$(cd "$(dirname "$0")/.." && pwd)/_build/tools/cuda-convolve
mkdir -p "$dir"
since () { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# A deterministic, non-constant image in [0,1]: written, not read from
# /dev/urandom, whose bytes would hold NaNs the reader rightly refuses.
cat >"$dir/gen.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main (int argc, char **argv)
{
  long n = atol (argv[1]);
  float *row = malloc (sizeof (float) * 3 * n);
  unsigned s = 12345;
  printf ("PF\n%ld %ld\n-1.0\n", n, n);
  for (long y = 0; y < n; y++)
    {
      for (long i = 0; i < 3 * n; i++)
        s = s * 1664525u + 1013904223u, row[i] = (s >> 8) * (1.0f / 16777216.0f);
      fwrite (row, sizeof (float), 3 * n, stdout);
    }
  return fflush (stdout) != 0;
}
C
cc -O2 -o "$dir/gen" "$dir/gen.c"
start=$(date +%s.%N)
"$dir/gen" "$size" >"$dir/in.pfm"
echo "input: $(ls -l "$dir/in.pfm" | awk '{print $5}') bytes, written in $(since "$start") s"

mask="1,2,0,-1,1;2,3,1,0,-1;0,1,4,1,0;-1,0,1,3,2;1,-1,0,2,1"
run ()   # run NAME [ENV=VALUE]
{
  name=$1
  shift
  start=$(date +%s.%N)
  env "$@" "$tool" --verbose --matrix "$mask" --normalize --border mirror \
    "$dir/in.pfm" "$dir/$name.pfm" | sed "s/^/$name: /"
  echo "$name: wall $(since "$start") s (reading and writing the files included)"
  sum=$(sha256sum "$dir/$name.pfm" | cut -d' ' -f1)
  echo "$name: sha256 $sum"
  rm -f "$dir/$name.pfm"
  eval "sum_$name=$sum"
}
run budget4g CUDA_CONVOLVE_DEVICE_BUDGET=4G
# The reference: no budget, no pipelining, so one strip.
run unstripped -u CUDA_CONVOLVE_DEVICE_BUDGET CUDA_CONVOLVE_PIPELINE=0
rm -f "$dir/in.pfm"
if [ "$sum_budget4g" = "$sum_unstripped" ]; then
  echo "huge: PASS: the 4 GB-budget result matches the unstripped one bit for bit"
else
  echo "huge: FAIL: the results differ"
  exit 1
fi
