#!/bin/sh
# The tool's batch benchmark (issue: 100 PNGs of 1 MP, RGB 8-bit, box-5, on
# the CPU): the whole run against decoding and encoding the same files alone,
# in one run.  "Alone" is the same batch through the 1x1 identity mask, whose
# convolution is one multiply a sample; one process a file is shown beside
# them.  BENCH_FILES (default 100) and BENCH_RUNS (default 3, the median)
# change it.  Needs GEGL (the GIMP root, or native GIMP 3 packages).
set -eu
cd "$(dirname "$0")/.."
exec scripts/env.sh env BENCH_FILES="${BENCH_FILES:-100}" BENCH_RUNS="${BENCH_RUNS:-3}" sh -c '
  set -eu
  scripts/build.sh >/dev/null
  tool=$PWD/_build/tools/cuda-convolve
  dir=$(mktemp -d)
  trap "rm -rf \"$dir\"" EXIT
  mkdir "$dir/in" "$dir/out"
  # A 1250x800 RGB image with a photograph'"'"'s detail at every scale (GEGL'"'"'s
  # plasma): it compresses as a photograph does, not as flat colour.
  gegl -o "$dir/base.jpg" -- gegl:plasma width=1250 height=800 seed=7 >/dev/null 2>&1
  "$tool" "$dir/base.jpg" "$dir/base.png"
  echo "bench-tool: each input $(wc -c <"$dir/base.png") bytes"
  for i in $(seq 1 "$BENCH_FILES"); do cp "$dir/base.png" "$dir/in/photo-$i.png"; done
  export CUDA_CONVOLVE_NO_GPU=1 CUDA_CONVOLVE_PRESET_DIR=$PWD/presets
  now () { date +%s.%N; }
  median () { sort -n | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }"; }
  time_runs () {   # time_runs LABEL COMMAND...: the median wall time, in s
    label=$1; shift
    for r in $(seq 1 "$BENCH_RUNS"); do
      rm -f "$dir/out/"*
      a=$(now); "$@"; b=$(now)
      echo "$a $b" | awk "{ print \$2 - \$1 }"
    done | median
  }
  one_by_one () { for f in "$dir/in/"*.png; do "$tool" --preset box-5 "$f" "$dir/out/${f##*/}"; done; }
  alone=$(time_runs alone "$tool" --matrix 1 "$dir/in/"*.png -o "$dir/out")
  box=$(time_runs box "$tool" --preset box-5 "$dir/in/"*.png -o "$dir/out")
  single=$(time_runs single one_by_one)
  cmp -s "$dir/out/photo-1.png" "$dir/out/photo-$BENCH_FILES.png" ||
    { echo "bench-tool: outputs differ"; exit 1; }
  echo "bench-tool: $BENCH_FILES PNGs of 1250x800 RGB 8-bit, CPU path ($(nproc) cores), median of $BENCH_RUNS"
  printf "| run | s | vs decode+encode alone |\n|---|---|---|\n"
  printf "| decode + encode alone (1x1 identity, one process) | %.2f | 1.00x |\n" "$alone"
  awk -v a="$alone" -v b="$box" "BEGIN { printf \"| --preset box-5, one process | %.2f | %.2fx |\n\", b, b / a }"
  awk -v a="$alone" -v b="$single" "BEGIN { printf \"| --preset box-5, a process a file | %.2f | %.2fx |\n\", b, b / a }"
'
