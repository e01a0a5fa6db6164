#!/bin/sh
# Writes gimp-cuda-convolve-VERSION-linux-x86_64.tar.xz in the clone's root
# (what `make release` runs).  It is built once, in the oldest supported
# system, the Debian 13 root with GIMP 3.0.4 (scripts/gimp-root.sh), so that
# it runs on every newer one: in _release, configured --enable-release (the
# engine once, libcudaconvolve.so.0, with FFTW and CUDA's runtime inside),
# with cubins for sm_75 to sm_120 and PTX for newer GPUs.  CUDA_ARCH (e.g.
# sm_90) builds that architecture alone, PTX-only with CUDA_PTX=compute_80
# CUDA_ARCH=none: builds for tests.  Prints the tarball's path and size.
set -eu
cd "$(dirname "$0")/.."
if [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" != trixie ]; then
  exec env GIMP_VERSION=3.0 scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" \
    CUDA_PTX="${CUDA_PTX:-}" scripts/release.sh
fi
autoreconf -fi >/dev/null 2>&1
version=$(sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' configure.ac)
# Afresh: make does not rebuild objects for other configure flags.
rm -rf _release
mkdir -p _release
cd _release
arch_flags=
[ -n "${CUDA_ARCH:-}" ] && [ "$CUDA_ARCH" != none ] && arch_flags="--with-cuda-arch=$CUDA_ARCH"
[ "${CUDA_ARCH:-}" = none ] && arch_flags="--with-cuda-arch="
[ -n "${CUDA_PTX:-}" ] && arch_flags="$arch_flags --with-cuda-ptx=$CUDA_PTX"
../configure --enable-release --with-gimp --with-gegl --with-fftw $arch_flags \
  >configure.log 2>&1 || { tail -30 configure.log; exit 1; }
grep -q 'CUDA GPU methods:  yes' configure.log ||
  { echo "release: configure found no CUDA toolkit: the release needs the GPU methods" >&2; exit 1; }
make -j"$(nproc)" >build.log 2>&1 || { grep -B2 -A10 -i error build.log | head -60; exit 1; }

name=gimp-cuda-convolve-$version-linux-x86_64
stage=stage/$name
plugin=plug-in-cuda-convolve
rm -rf stage && mkdir -p "$stage/lib" "$stage/bin" "$stage/gegl" "$stage/$plugin/presets"
cp engine/libcudaconvolve.so.0 "$stage/lib/"
cp tools/cuda-convolve "$stage/bin/"
cp gegl/cuda-convolve-gpl3.so "$stage/gegl/"
cp plug-ins/$plugin/$plugin "$stage/$plugin/"
cp ../presets/*.preset "$stage/$plugin/presets/"
cp ../release/install.sh ../release/uninstall.sh ../README.md ../COPYING "$stage/"
echo "$version" >"$stage/VERSION"
strip --strip-unneeded "$stage/lib/"*.so.0 "$stage/bin/"* "$stage/gegl/"*.so "$stage/$plugin/$plugin"
tar -C stage --owner=0 --group=0 -cf - "$name" | xz -6 -T0 >"../$name.tar.xz"
echo "release: $name.tar.xz, $(du -m "../$name.tar.xz" | cut -f1) MB; nvcc$(sed -n 's/^CUDA_GENCODE = //p' Makefile)"
