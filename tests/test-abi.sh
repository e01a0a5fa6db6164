#!/bin/sh
# The release's ABI floor (scripts/check-abi.sh): first that the check
# fails where it should, on a library made here that needs a glibc symbol
# version past the floor and a library outside the allowed list, and
# passes one that needs neither; then, in a build configured as the
# release (--enable-release: the engine as libcudaconvolve.so.0), the
# plug-in, the GEGL module and the engine themselves.
set -u
top=${top_srcdir:-..}
build=${top_builddir:-.}
cc=${CC:-cc}
failures=0
command -v "$cc" >/dev/null && command -v objdump >/dev/null && command -v python3 >/dev/null || {
  echo "SKIP: a C compiler, objdump and python3 are needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A stand-in libc whose one symbol is version GLIBC_2.99, and libfoo.
printf 'GLIBC_2.99 { global: newer; local: *; };\n' >"$tmp/v.map"
printf 'int newer (void) { return 1; }\n' >"$tmp/newer.c"
printf 'int foo (void) { return 2; }\n' >"$tmp/foo.c"
printf 'int newer (void);\nint foo (void);\nint probe (void) { return newer () + foo (); }\n' \
  >"$tmp/probe.c"
printf '#include <stdio.h>\nint plain (void) { return puts ("plain"); }\n' >"$tmp/plain.c"
mkdir "$tmp/stub"
"$cc" -shared -fPIC -o "$tmp/stub/libc.so.6" -Wl,-soname,libc.so.6 \
  -Wl,--version-script="$tmp/v.map" "$tmp/newer.c" -nostdlib &&
"$cc" -shared -fPIC -o "$tmp/stub/libfoo.so.1" -Wl,-soname,libfoo.so.1 "$tmp/foo.c" &&
"$cc" -shared -fPIC -o "$tmp/probe.so" "$tmp/probe.c" "$tmp/stub/libc.so.6" \
  "$tmp/stub/libfoo.so.1" &&
"$cc" -shared -fPIC -o "$tmp/plain.so" "$tmp/plain.c" || {
  echo "FAIL - the probes did not build"; exit 1; }
said=$(sh "$top/scripts/check-abi.sh" "$tmp/probe.so")
rc=$?
if [ $rc = 1 ] && echo "$said" | grep -q 'GLIBC_2.99' && echo "$said" | grep -q 'libfoo.so.1'; then
  echo "ok   - a library past the floor fails, naming GLIBC_2.99 and libfoo.so.1"
else
  echo "FAIL - a library past the floor: exit $rc, '$said'"; failures=$((failures + 1))
fi
if sh "$top/scripts/check-abi.sh" "$tmp/plain.so" >/dev/null; then
  echo "ok   - a library within the floor passes"
else
  echo "FAIL - a library within the floor fails"; failures=$((failures + 1))
fi
if [ -f "$build/engine/libcudaconvolve.so.0" ]; then
  sh "$top/scripts/check-abi.sh" "$build/plug-ins/plug-in-cuda-convolve/plug-in-cuda-convolve" \
    "$build/gegl/cuda-convolve-gpl3.so" "$build/engine/libcudaconvolve.so.0" ||
    failures=$((failures + 1))
else
  echo "SKIP: the release's own binaries: this build is not configured --enable-release"
fi
echo "the ABI floor: $failures failures"
[ $failures = 0 ]
