#!/bin/sh
# The tool's benchmarks: a run against decoding and encoding the same files
# alone, in one run.  "Alone" is the same run through the 1x1 identity mask,
# whose convolution is one multiply a sample.  BENCH_RUNS (default 3, the
# median) changes it.  Needs GEGL (the GIMP root, or native GIMP 3 packages).
#
# By default, the batch (issue: 100 PNGs of 1 MP, RGB 8-bit, box-5, on the
# CPU), with one process a file beside it; BENCH_FILES (default 100).
# BENCH_ONLY=shape: one 4096x4096 RGB 8-bit PNG through `--shape disc
# --radius 60`, on the GPU where one is usable (BENCH_SIZE changes the side).
# Where GIMP 3 is on the path (natively, or inside the root: the GPU
# machine's bundle runs it there) it runs directly, else in the root;
# BENCH_BUILD=0 takes the build in _build as it is.
set -eu
cd "$(dirname "$0")/.."
where=scripts/env.sh
command -v gegl >/dev/null && where=
[ "${BENCH_BUILD:-1}" = 0 ] || $where env CUDA_ARCH="${CUDA_ARCH:-}" scripts/build.sh >/dev/null
exec $where env BENCH_FILES="${BENCH_FILES:-100}" BENCH_RUNS="${BENCH_RUNS:-3}" \
  BENCH_ONLY="${BENCH_ONLY:-}" BENCH_SIZE="${BENCH_SIZE:-4096}" sh -c '
  set -eu
  tool=$PWD/_build/tools/cuda-convolve
  dir=$(mktemp -d)
  trap "rm -rf \"$dir\"" EXIT
  mkdir "$dir/in" "$dir/out"
  export CUDA_CONVOLVE_PRESET_DIR=$PWD/presets
  now () { date +%s.%N; }
  median () { sort -n | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }"; }
  time_runs () {   # time_runs COMMAND...: the median wall time, in s
    for r in $(seq 1 "$BENCH_RUNS"); do
      rm -f "$dir/out/"*
      a=$(now); "$@"; b=$(now)
      echo "$a $b" | awk "{ print \$2 - \$1 }"
    done | median
  }
  # An RGB image with a photograph'"'"'s detail at every scale (GEGL'"'"'s
  # plasma): it compresses as a photograph does, not as flat colour.
  plasma () {   # plasma W H FILE
    gegl -o "$dir/base.jpg" -- gegl:plasma width="$1" height="$2" seed=7 >/dev/null 2>&1
    CUDA_CONVOLVE_NO_GPU=1 "$tool" "$dir/base.jpg" "$3"
  }

  if [ "$BENCH_ONLY" = shape ]; then
    n=$BENCH_SIZE
    plasma "$n" "$n" "$dir/in/photo.png"
    device=$("$tool" --verbose --shape disc --radius 60 "$dir/in/photo.png" "$dir/out/photo.png" 2>&1 |
             awk -F": " "/^device/ { print \$2 }")
    alone=$(time_runs "$tool" --matrix 1 "$dir/in/photo.png" "$dir/out/photo.png")
    disc=$(time_runs "$tool" --shape disc --radius 60 "$dir/in/photo.png" "$dir/out/photo.png")
    echo "bench-tool: one PNG of ${n}x${n} RGB 8-bit ($(wc -c <"$dir/in/photo.png") bytes), device: ${device:-none}, median of $BENCH_RUNS"
    printf "| run | s | vs decode+encode alone |\n|---|---|---|\n"
    printf "| decode + encode alone (1x1 identity) | %.2f | 1.00x |\n" "$alone"
    awk -v a="$alone" -v b="$disc" "BEGIN { printf \"| --shape disc --radius 60 | %.2f | %.2fx |\n\", b, b / a }"
    exit 0
  fi

  export CUDA_CONVOLVE_NO_GPU=1
  plasma 1250 800 "$dir/base.png"
  echo "bench-tool: each input $(wc -c <"$dir/base.png") bytes"
  for i in $(seq 1 "$BENCH_FILES"); do cp "$dir/base.png" "$dir/in/photo-$i.png"; done
  one_by_one () { for f in "$dir/in/"*.png; do "$tool" --preset box-5 "$f" "$dir/out/${f##*/}"; done; }
  alone=$(time_runs "$tool" --matrix 1 "$dir/in/"*.png -o "$dir/out")
  box=$(time_runs "$tool" --preset box-5 "$dir/in/"*.png -o "$dir/out")
  single=$(time_runs one_by_one)
  cmp -s "$dir/out/photo-1.png" "$dir/out/photo-$BENCH_FILES.png" ||
    { echo "bench-tool: outputs differ"; exit 1; }
  echo "bench-tool: $BENCH_FILES PNGs of 1250x800 RGB 8-bit, CPU path ($(nproc) cores), median of $BENCH_RUNS"
  printf "| run | s | vs decode+encode alone |\n|---|---|---|\n"
  printf "| decode + encode alone (1x1 identity, one process) | %.2f | 1.00x |\n" "$alone"
  awk -v a="$alone" -v b="$box" "BEGIN { printf \"| --preset box-5, one process | %.2f | %.2fx |\n\", b, b / a }"
  awk -v a="$alone" -v b="$single" "BEGIN { printf \"| --preset box-5, a process a file | %.2f | %.2fx |\n\", b, b / a }"
'
