#!/bin/sh
# Every file git tracks, but git's and CI's own, is in make dist's tarball:
# make distcheck builds and checks from that tarball, which takes too long
# for every CI run, and a file left out of it breaks the build there.
#   scripts/check-dist.sh BUILD-FOLDER      (a configured one)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$1"
rm -f ./*.tar.gz
make dist-gzip >dist.log 2>&1 || { tail -20 dist.log; exit 1; }
tarball=$(ls ./*.tar.gz)
tar -tzf "$tarball" | sed 's|^[^/]*/||' | sort >dist-files.txt
(cd "$top" && git ls-files) | grep -v -x -e .ci/run -e .gitignore -e .gitattributes -e m4/.gitkeep | sort |
  comm -23 - dist-files.txt >dist-missing.txt
if [ -s dist-missing.txt ]; then
  echo "check-dist: make dist leaves out (add them to Makefile.am):"
  sed 's/^/  /' dist-missing.txt
  exit 1
fi
echo "check-dist: $tarball holds every file git tracks ($(wc -l <dist-files.txt) entries)"
