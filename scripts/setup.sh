#!/bin/sh
# Installs what building and testing need, as root, on Debian 12 or 13 (or a
# derivative).  Where the distribution packages GIMP 3 it is installed
# natively; elsewhere (Debian 12) a Debian 13 root with GIMP 3 is provisioned
# once, outside the clone (scripts/gimp-root.sh).  Prints "native" or "root".
set -eu
[ "$(id -u)" = 0 ] || { echo "setup: run as root (it installs packages)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

# apt's and debconf's chatter goes to a log; its end shows if a step fails.
log=${TMPDIR:-/tmp}/gimp-cuda-convolve-setup.log
: >"$log"
quietly ()
{
  "$@" >>"$log" 2>&1 || { echo "setup: '$*' failed; the end of $log:" >&2; tail -20 "$log" >&2; exit 1; }
}

apt_install ()
{
  quietly apt-get install -y -qq --no-install-recommends "$@"
}

quietly apt-get update -qq
# The engine's sanitizer and fuzzing builds run natively: clang with
# libFuzzer, GLib for the preset parser; python3 and binutils for the
# layer and ABI checks (scripts/check-layers.sh, scripts/check-abi.sh).
apt_install autoconf automake make gcc g++ pkg-config ca-certificates \
            clang libclang-rt-dev libglib2.0-dev libfftw3-dev python3 binutils
# GIMP_VERSION (3.0 or 3.2) asks for that GIMP's root whatever the host has.
if [ -z "${GIMP_VERSION:-}" ] && apt-cache show libgimp-3.0-dev >/dev/null 2>&1; then
  apt_install gimp libgimp-3.0-dev libgegl-dev gegl python3-gi gir1.2-gimp-3.0 \
              xvfb xauth imagemagick x11-utils xdotool
  echo native
else
  apt_install debootstrap
  "$(dirname "$0")/gimp-root.sh" provision >&2
  echo root
fi
