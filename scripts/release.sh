#!/bin/sh
# Writes gimp-cuda-convolve-VERSION-linux-x86_64.tar.xz and, beside it, the
# plug-in's GIMP extension (.gex) in the clone's root (what `make release`
# runs).  It is built once, in the oldest supported
# system, the Debian 13 root with GIMP 3.0.4 (scripts/gimp-root.sh), so that
# it runs on every newer one: in _release/build, configured --enable-release (the
# engine once, libcudaconvolve.so.0, with FFTW and CUDA's runtime inside),
# with cubins for sm_75 to sm_120 and PTX for newer GPUs.  CUDA_ARCH (e.g.
# sm_90) builds that architecture alone, PTX-only with CUDA_PTX=compute_80
# CUDA_ARCH=none: builds for tests.  Prints the tarball's path and size.
set -eu
cd "$(dirname "$0")/.."
# A source folder configured in place: configure refuses a second build
# beside it, and make would take that build's objects for its own.  The
# release is built from a copy of the clone's own files (git's list), made
# here, where git is.
if [ -f config.status ] && [ -z "${CC_RELEASE_SOURCE:-}" ]; then
  command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    { echo "release: this folder is configured in place, and copying its files out of that takes a git clone and git: run 'make distclean' first, or configure out of tree" >&2; exit 1; }
  echo "release: the source folder is configured in place; building from a copy of its files" >&2
  rm -rf _release && mkdir -p _release/source
  git ls-files -z | xargs -0 cp --parents -t _release/source
  CC_RELEASE_SOURCE=_release/source
fi
if [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" != trixie ]; then
  exec env GIMP_VERSION=3.0 scripts/env.sh env CUDA_ARCH="${CUDA_ARCH:-}" \
    CUDA_PTX="${CUDA_PTX:-}" CC_RELEASE_SOURCE="${CC_RELEASE_SOURCE:-}" scripts/release.sh
fi
# What making the release takes, checked before the build's minutes.
for tool in xz:xz-utils strip:binutils tar:tar autoreconf:autoconf python3:python3; do
  command -v "${tool%:*}" >/dev/null 2>&1 ||
    { echo "release: '${tool%:*}' is missing: install ${tool#*:}" >&2; exit 1; }
done
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] ||
  { echo "release: no CUDA toolkit (nvcc, in PATH or /usr/local/cuda/bin): the release needs the GPU methods" >&2; exit 1; }
version=$(sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' configure.ac)
src=$(pwd)/${CC_RELEASE_SOURCE:-.}
(cd "$src" && autoreconf -fi >/dev/null 2>&1)
# Afresh: make does not rebuild objects for other configure flags.
rm -rf _release/build
mkdir -p _release/build
cd _release/build
arch_flags=
[ -n "${CUDA_ARCH:-}" ] && [ "$CUDA_ARCH" != none ] && arch_flags="--with-cuda-arch=$CUDA_ARCH"
[ "${CUDA_ARCH:-}" = none ] && arch_flags="--with-cuda-arch="
[ -n "${CUDA_PTX:-}" ] && arch_flags="$arch_flags --with-cuda-ptx=$CUDA_PTX"
"$src/configure" --enable-release --with-gimp --with-gegl --with-fftw $arch_flags \
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
cp "$src"/presets/*.preset "$stage/$plugin/presets/"
cp "$src/release/install.sh" "$src/release/uninstall.sh" "$src/README.md" "$src/COPYING" "$stage/"
echo "$version" >"$stage/VERSION"
strip --strip-unneeded "$stage/lib/"*.so.0 "$stage/bin/"* "$stage/gegl/"*.so "$stage/$plugin/$plugin"
tar -C stage --owner=0 --group=0 -cf - "$name" | xz -6 -T0 >"../../$name.tar.xz"
echo "release: $name.tar.xz, $(du -m "../../$name.tar.xz" | cut -f1) MB; nvcc$(sed -n 's/^CUDA_GENCODE = //p' Makefile)"

# The .gex beside it: the plug-in with the engine beside it and its presets,
# for GIMP's File > Open (scripts/make-gex.py keeps their modes).
id=org.gimp.extension.cuda-convolve
gex=gex/$id
rm -rf gex && mkdir -p "$gex/$plugin"
cp -p "$stage/$plugin/$plugin" "$stage/lib/libcudaconvolve.so.0" "$gex/$plugin/"
cp -pr "$stage/$plugin/presets" "$gex/$plugin/"
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -u +%Y-%m-%d)/" \
  "$src/release/gex/$id.metainfo.xml" >"$gex/$id.metainfo.xml"
chmod -R u=rwX,go=rX "$gex"
rm -f "../../$name.gex"
python3 "$src/scripts/make-gex.py" "$gex" "../../$name.gex"
echo "release: $name.gex, $(du -m "../../$name.gex" | cut -f1) MB"
