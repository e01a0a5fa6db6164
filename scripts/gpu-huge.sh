#!/bin/sh
# On the GPU machine, after scripts/gpu-check.sh built _build: a
# 30000x30000 RGB float PFM (10.8 GB) through the tool three ways, whose
# outputs must be identical (sha256):
#   stream    the tool's default: the files in strips of the 256 MB host
#             budget, the engine under a 4 GB device budget (peak host
#             memory must stay under 2 GB);
#   whole4g   the image held whole in pageable memory
#             (CUDA_CONVOLVE_HOST_BUDGET=64G), the engine in strips under
#             the 4 GB device budget: the engine time issue 23 targets;
#   reference held whole and convolved in one strip, no pipelining: the
#             result as the tool gave it before it streamed.
# Prints wall time, engine time, strips and peak host memory of each run.
# HUGE_DIR (default /tmp/huge, needs ~22 GB) and HUGE_SIZE change the setup.
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
run stream CUDA_CONVOLVE_DEVICE_BUDGET=4G
run whole4g CUDA_CONVOLVE_HOST_BUDGET=64G CUDA_CONVOLVE_DEVICE_BUDGET=4G
run reference -u CUDA_CONVOLVE_DEVICE_BUDGET CUDA_CONVOLVE_HOST_BUDGET=64G \
  CUDA_CONVOLVE_PIPELINE=0
rm -f "$dir/in.pfm"
if [ "$sum_stream" = "$sum_reference" ] && [ "$sum_whole4g" = "$sum_reference" ]; then
  echo "huge: PASS: streamed and 4 GB-budget results match the one-strip result bit for bit"
else
  echo "huge: FAIL: the results differ"
  exit 1
fi
