#!/bin/sh
# Provision (once) and enter a Debian root with GIMP 3, for hosts whose
# distribution has no GIMP 3 package (Debian 12).  GIMP_VERSION picks it:
# 3.0 (the default) is Debian 13 with GIMP 3.0.4, 3.2 is Debian forky with
# GIMP 3.2.6.  Each root lives outside the clone, apart from the other, and
# is reused.  See README.md, "Install".
#
# GIMP_ROOT_KIND=user makes and enters the same system as a GIMP user has it:
# GIMP, its Python and the gegl tool, and nothing to build with (no
# compiler, no -dev packages, no CUDA toolkit), where the release's test
# installs it (scripts/test-release.sh).
#
#   scripts/gimp-root.sh provision     create the root if it is missing
#   scripts/gimp-root.sh run CMD...    run CMD inside it, in this directory
set -eu

GIMP_VERSION=${GIMP_VERSION:-3.0}
case "$GIMP_VERSION" in
  3.0) DIST=trixie; SCRIPT=trixie ;;
  # Debian 12's debootstrap has no forky script: sid's makes it.
  3.2) DIST=forky; SCRIPT=/usr/share/debootstrap/scripts/sid ;;
  *) echo "gimp-root: GIMP_VERSION is 3.0 or 3.2, not '$GIMP_VERSION'" >&2; exit 2 ;;
esac
KIND=${GIMP_ROOT_KIND:-dev}
case "$KIND" in
  dev) ROOT=${GIMP_ROOT:-/var/cache/gimp-cuda-convolve/$DIST} ;;
  user) ROOT=${GIMP_ROOT:-/var/cache/gimp-cuda-convolve/$DIST-user} ;;
  *) echo "gimp-root: GIMP_ROOT_KIND is dev or user, not '$KIND'" >&2; exit 2 ;;
esac
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# A testing suite's Release file may be past its Valid-Until on a mirror
# that lags; the packages are still signed.
APT="apt-get -o Acquire::Check-Valid-Until=false"
# libgimp-3.0-dev does not pull in the tool's readers everywhere (forky);
# g++-15 is what CUDA 13 takes where the default g++ is newer.
PACKAGES="gimp libgimp-3.0-dev libgegl-dev gegl gcc g++ make autoconf automake
          pkg-config python3-gi gir1.2-gimp-3.0 xvfb xauth imagemagick x11-utils
          xdotool ca-certificates libfftw3-dev libpng-dev libjpeg-dev libwebp-dev
          liblcms2-dev xz-utils python3-skimage gmic"
[ "$DIST" = forky ] && PACKAGES="$PACKAGES g++-15"
# A user's system: GIMP, its Python, the gegl tool, and bubblewrap, which
# Flatpak brings (tests/flatpak-emulated.sh confines GIMP with it).
[ "$KIND" = user ] && PACKAGES="gimp python3-gi gir1.2-gimp-3.0 gegl xz-utils bubblewrap"
# The package list a root was last completed with: a root from before a
# package joined the list gets what it lacks.
STAMP=etc/gimp-cuda-convolve-packages

# What provisioning prints (debootstrap's and apt's progress) goes to a log
# beside the root; a user sees one line, and the log's end if it fails.
# Each step checks itself: 'set -e' does not hold inside an 'if'.
provision_root ()
{
  rm -rf "$ROOT.tmp" && mkdir -p "$ROOT.tmp" &&
    debootstrap --variant=minbase "$DIST" "$ROOT.tmp" http://deb.debian.org/debian "$SCRIPT" &&
    cp /etc/resolv.conf "$ROOT.tmp/etc/resolv.conf" &&
    mount -t proc proc "$ROOT.tmp/proc" || return 1
  chroot "$ROOT.tmp" sh -c "$APT update &&
    DEBIAN_FRONTEND=noninteractive $APT install -y --no-install-recommends $(echo $PACKAGES)"
  status=$?
  umount "$ROOT.tmp/proc"
  [ $status = 0 ] && echo $PACKAGES >"$ROOT.tmp/$STAMP" && mv "$ROOT.tmp" "$ROOT"
}

complete_root ()
{
  mount -t proc proc "$ROOT/proc" || return 1
  chroot "$ROOT" sh -c "$APT update &&
    DEBIAN_FRONTEND=noninteractive $APT install -y --no-install-recommends $(echo $PACKAGES)"
  status=$?
  umount "$ROOT/proc"
  [ $status = 0 ] && echo $PACKAGES >"$ROOT/$STAMP"
}

provision ()
{
  if ls "$ROOT"/usr/bin/gimp-console-3* >/dev/null 2>&1; then
    [ "$(cat "$ROOT/$STAMP" 2>/dev/null)" = "$(echo $PACKAGES)" ] && return 0
    echo "gimp-root: adding what $ROOT lacks of the package list (once)" >&2
    (complete_root) >"$ROOT.log" 2>&1 ||
      { echo "gimp-root: that failed; the end of $ROOT.log:" >&2; tail -20 "$ROOT.log" >&2; exit 1; }
    return 0
  fi
  command -v debootstrap >/dev/null ||
    { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null 2>&1; }
  mkdir -p "$(dirname "$ROOT")"
  log="$ROOT.log"
  echo "gimp-root: installing GIMP $GIMP_VERSION in a Debian $DIST root ($KIND), $ROOT (about two minutes, once)" >&2
  if ! (provision_root) >"$log" 2>&1; then
    echo "gimp-root: that failed; the end of $log:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
}

# Each run mounts what it needs in a mount namespace of its own (unshare):
# runs side by side in one root never see, reuse or unmount each other's
# mounts, and the kernel drops them when the run ends, killed or not.
run ()
{
  here=$(pwd)
  bind ()   # bind SRC DST [ro]
  {
    mkdir -p "$2"
    mount --rbind "$1" "$2"
    [ "${3:-}" = ro ] && mount -o remount,bind,ro "$2" 2>/dev/null || true
  }
  mount --make-rprivate /
  # The root a mount point of its own, so that inside it / is one, as
  # bubblewrap (tests/flatpak-emulated.sh) needs.
  mount --bind "$ROOT" "$ROOT"
  mount -t proc proc "$ROOT/proc"
  mount -t sysfs sys "$ROOT/sys"
  bind /dev "$ROOT/dev"
  bind "$here" "$ROOT$here"
  if [ "$KIND" = dev ] && [ -d "$CUDA_HOME/" ]; then
    real=$(readlink -f "$CUDA_HOME")
    bind "$real" "$ROOT$real" ro
    [ "$real" = /usr/local/cuda ] || ln -sfn "$real" "$ROOT/usr/local/cuda"
  fi
  # The host's NVIDIA driver (/dev/nvidia* come with /dev): libcuda and the
  # libraries of its own that it loads, file by file (they may sit among
  # the host's other libraries), on the root's library path; ldconfig there
  # makes their names.  The files mounted on stay, empty, between runs.
  driver=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{ print $NF; exit }')
  if [ -n "$driver" ]; then
    dir=$(dirname "$(readlink -f "$driver")")
    nv="$ROOT/usr/local/lib/host-nvidia"
    mkdir -p "$nv"
    for f in $(readlink -f "$dir"/libcuda.so* "$dir"/libnvidia-*.so* | sort -u); do
      [ -f "$f" ] || continue
      t="$nv/$(basename "$f")"
      [ -e "$t" ] || : >"$t"
      mount --bind "$f" "$t"
    done
    echo /usr/local/lib/host-nvidia >"$ROOT/etc/ld.so.conf.d/zz-host-nvidia.conf"
    chroot "$ROOT" ldconfig
  fi
  chroot "$ROOT" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$here" "$@"
}

case "${1:-}" in
  provision) provision ;;
  run) shift; provision
       exec unshare --mount env GIMP_VERSION="$GIMP_VERSION" GIMP_ROOT_KIND="$KIND" \
         ${GIMP_ROOT:+GIMP_ROOT="$GIMP_ROOT"} sh \
         "$0" in-namespace "$@" ;;
  in-namespace) shift; run "$@" ;;
  *) echo "usage: $0 provision | run CMD..." >&2; exit 2 ;;
esac
