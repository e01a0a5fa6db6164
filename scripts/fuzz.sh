#!/bin/sh
# Runs each libFuzzer target (fuzz/) for SECONDS (default 60) from the seed
# corpus in fuzz/corpus, in a clang build in _fuzz.  Fails on any crash,
# leak or sanitizer report, leaving the input in _fuzz/artifacts.  Prints
# the executions per target and in total.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: mask preset pfm pnm pam
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-mask preset pfm pnm pam}
command -v clang >/dev/null ||
  { echo "fuzz: needs clang and libclang-rt-dev (scripts/setup.sh installs them)" >&2; exit 1; }
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
mkdir -p _fuzz/artifacts
cd _fuzz
[ -f Makefile ] ||
  ../configure CC=clang --without-cuda --without-gimp --enable-fuzzers >configure.log 2>&1 ||
  { tail -20 configure.log; exit 1; }
for t in $targets; do
  make -j"$(nproc)" "fuzz/fuzz-$t" >build.log 2>&1 ||
    { grep -B2 -A10 -i error build.log | head -40; exit 1; }
done

total=0
for t in $targets; do
  mkdir -p "corpus/$t"
  dict=../fuzz/$t.dict
  [ -f "$dict" ] || dict=
  if ! "fuzz/fuzz-$t" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
       -artifact_prefix=artifacts/"$t"- ${dict:+-dict="$dict"} \
       "corpus/$t" "../fuzz/corpus/$t" >"$t.log" 2>&1; then
    tail -40 "$t.log"
    echo "fuzz: $t FAILED; the input is in _fuzz/artifacts" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t.log")
  echo "fuzz: $t: $runs executions in ${seconds}s, corpus $(ls "corpus/$t" | wc -l) inputs, no crash"
  total=$((total + runs))
done
echo "fuzz: $total executions in total, no crash"
