#!/bin/sh
# The release as a GIMP user gets it: builds the tarball (scripts/release.sh;
# CUDA_ARCH, default sm_90 here), then in a root of each supported GIMP that
# has GIMP and nothing to build with (scripts/gimp-root.sh, GIMP_ROOT_KIND=
# user), for a new user: unpacks it; checks that the root has no compiler,
# no -dev package and no CUDA toolkit; installs it (timed), and checks that
# install.sh wrote only inside the folders it names, that everything it
# installed finds every library it links to (ldd), that uninstall.sh then
# leaves the system as it was, and that a second install upgrades the first
# in place; installs the .gex as GIMP's File > Open does (tests/gex.sh);
# runs the GIMP suites against the installed files (tests/test-gimp.sh with
# CC_INSTALLED=1); and uninstalls.  Before that,
# here, the ABI floor of the plug-in, the module and the engine
# (scripts/check-abi.sh).  As root.
#   scripts/test-release.sh [GIMP_VERSION...]        (default: 3.0 3.2)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" != inside ]; then
  CUDA_ARCH=${CUDA_ARCH:-sm_90} scripts/release.sh
  tarball=$(ls -t gimp-cuda-convolve-*-linux-x86_64.tar.xz | head -1)
  status=0
  # The settings' table of the release's own build, for the GIMP suites'
  # check of the front ends against it (tests/gimp/settings.py) in the
  # user's root, where nothing is built.
  GIMP_VERSION=3.0 scripts/env.sh sh -c 'cd _release/build && make tests/test-settings \
    >/dev/null && tests/test-settings --print' >_release/settings.tsv || status=1
  # The ABI floor of what GIMP loads (scripts/check-abi.sh), here, where
  # objdump is: the user's root has nothing to inspect binaries with.
  abi=$(mktemp -d)
  tar -xJf "$tarball" -C "$abi"
  r=$(ls -d "$abi"/gimp-cuda-convolve-*)
  echo "test-release: the ABI floor of $tarball"
  sh scripts/check-abi.sh "$r/plug-in-cuda-convolve/plug-in-cuda-convolve" \
    "$r/gegl/cuda-convolve-gpl3.so" "$r/lib/libcudaconvolve.so.0" || status=1
  rm -rf "$abi"
  for v in ${*:-3.0 3.2}; do
    echo "test-release: $tarball in a GIMP $v user's system"
    GIMP_VERSION=$v GIMP_ROOT_KIND=user scripts/gimp-root.sh run \
      sh scripts/test-release.sh inside "$tarball" || status=1
  done
  exit $status
fi

# ---- Inside a user's root: every check runs, and the count decides ----
set +e
tarball=$2
here=$(pwd)
failures=0
ok () { echo "ok   - $*"; }
fail () { echo "FAIL - $*"; failures=$((failures + 1)); }
check () { if eval "$1"; then ok "$2"; else fail "$2"; fi; }

tools=$(for c in cc gcc g++ c++ clang nvcc make pkg-config; do command -v $c; done | tr '\n' ' ')
check '[ -z "$tools" ]' "nothing to build with: no compiler, make or pkg-config ($tools)"
devs=$(dpkg-query -W -f '${Package}\n' | grep -- '-dev$' | tr '\n' ' ' || true)
check '[ -z "$devs" ]' "no -dev packages ($devs)"
check '[ ! -e /usr/local/cuda ] && ! ls /usr/lib/x86_64-linux-gnu/libcufft* >/dev/null 2>&1' \
  "no CUDA toolkit"
echo "GIMP: $("$(sh scripts/gimp-console.sh)" --version)"

mkdir -p /home
export HOME=$(mktemp -d /home/user.XXXXXX)
unset XDG_DATA_HOME XDG_CONFIG_HOME GIMP3_DIRECTORY
unpacked=$(mktemp -d)
tar -xJf "$tarball" -C "$unpacked"
release=$(ls -d "$unpacked"/gimp-cuda-convolve-*)
snapshot ()   # every path of the system, but the kernel's, scratch and this clone
{
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run \
    -o -path /var/tmp -o -path /var/cache -o -path /var/log -o -path "$here" \) -prune \
    -o -print | sort
}
snapshot >/tmp/before

start=$(date +%s.%N)
sh "$release/install.sh" >/tmp/install.log 2>&1 || { cat /tmp/install.log; fail "install.sh"; }
took=$(echo "$(date +%s.%N) - $start" | awk '{ printf "%.2f", $1 - $3 }')
sed 's/^/  /' /tmp/install.log
echo "install.sh: $took s"
snapshot >/tmp/after
comm -13 /tmp/before /tmp/after >/tmp/added
data=$HOME/.local/share/gegl-0.4/plug-ins
allowed="$data $HOME/.local/bin $(ls -d "$HOME"/.config/GIMP/3.*/plug-ins 2>/dev/null)"
outside=$(while read -r p; do
  inside=no
  for a in $allowed; do
    case "$a/" in "$p/"*) inside=yes ;; esac     # a folder on the way to one
    case "$p" in "$a"|"$a"/*) inside=yes ;; esac
  done
  [ $inside = yes ] || echo "$p"
done </tmp/added)
check '[ -s /tmp/added ] && [ -z "$outside" ]' \
  "install.sh wrote $(wc -l </tmp/added) paths, all inside the folders it names${outside:+; outside: $outside}"
home=$data/gimp-cuda-convolve
check '[ -f "$home/installed-files" ] && [ "$(grep -c . "$home/installed-files")" -eq "$(($(wc -l </tmp/added) - 1))" ]' \
  "its list (installed-files) names every path it made"
for f in "$home/libcudaconvolve.so.0" "$home/plug-in-cuda-convolve" "$home/cuda-convolve" \
         "$data/cuda-convolve-gpl3.so"; do
  missing=$(ldd "$f" 2>&1 | grep 'not found' | tr -s ' \t' ' ' || true)
  check '[ -z "$missing" ]' "${f##*/} finds every library it links to${missing:+: $missing}"
done
for d in $(ls -d "$HOME"/.config/GIMP/3.*); do
  check '[ -x "$d/plug-ins/plug-in-cuda-convolve/plug-in-cuda-convolve" ]' \
    "the plug-in is in GIMP ${d##*/}'s profile"
done
printf 'P5\n3 3\n255\n\001\002\003\004\005\006\007\010\011' >/tmp/in.pgm
"$HOME/.local/bin/cuda-convolve" --preset box-3 /tmp/in.pgm /tmp/out.pgm 2>/tmp/tool.log
tool_rc=$?
check '[ $tool_rc -eq 0 ] && [ "$(head -c 2 /tmp/out.pgm)" = P5 ] && [ "$(wc -c </tmp/out.pgm)" -eq 20 ]' \
  "the installed tool finds its presets and runs $(cat /tmp/tool.log)"

sh "$home/uninstall.sh" >/tmp/uninstall.log 2>&1 || { cat /tmp/uninstall.log; fail "uninstall.sh"; }
snapshot >/tmp/removed
check 'cmp -s /tmp/before /tmp/removed' "uninstall.sh leaves the system as it was ($(cat /tmp/uninstall.log))"

# For everyone (--system, as root): GIMP's and GEGL's system folders and
# /usr/local/bin, and back.
sh "$release/install.sh" --system >/tmp/system.log 2>&1
system_rc=$?
system_home=$(ls -d /usr/lib/*/gegl-0.4/gimp-cuda-convolve /usr/lib/gegl-0.4/gimp-cuda-convolve \
  2>/dev/null | head -1)
check '[ $system_rc -eq 0 ] && ls /usr/lib/*/gimp/3.0/plug-ins/plug-in-cuda-convolve/plug-in-cuda-convolve >/dev/null &&
       /usr/local/bin/cuda-convolve --preset box-3 /tmp/in.pgm /tmp/out.pgm' \
  "install.sh --system: the plug-in in GIMP's folder, the tool in /usr/local/bin, its presets found"
sh "$system_home/uninstall.sh" --system >/dev/null 2>&1
snapshot >/tmp/removed
check 'cmp -s /tmp/before /tmp/removed' "uninstall.sh --system leaves the system as it was"

# Flathub's GIMP, emulated (tests/flatpak-emulated.sh): install.sh into its
# folders, GIMP there as Flatpak runs it, and uninstall.sh.
sh tests/flatpak-emulated.sh "$release" >/tmp/flatpak.log 2>&1
flatpak_rc=$?
grep -E '^(ok|FAIL|SKIP)' /tmp/flatpak.log
check '[ $flatpak_rc -eq 0 ]' "Flathub's GIMP, emulated (exit $flatpak_rc)"

# The .gex beside the tarball (tests/gex.sh), as GIMP's File > Open
# installs it; it writes only in a home of its own, gone after.
sh tests/gex.sh "${tarball%.tar.xz}.gex" >/tmp/gex.log 2>&1
gex_rc=$?
grep -E '^(ok|FAIL|SKIP)' /tmp/gex.log
check '[ $gex_rc -eq 0 ]' "the .gex through GIMP's file-gex-load (exit $gex_rc)"
snapshot >/tmp/before

sh "$release/install.sh" >/dev/null 2>&1 && sh "$release/install.sh" >/dev/null 2>&1
snapshot >/tmp/again
check 'cmp -s /tmp/after /tmp/again' "install.sh again upgrades in place: the same paths"

CC_INSTALLED=1 CC_SETTINGS_TABLE=$here/_release/settings.tsv top_srcdir=. sh tests/test-gimp.sh \
  >/tmp/suites.log 2>&1
rc=$?
grep -E 'checks, |^files: |^SKIP|^FAIL|GEGL_THREADS' /tmp/suites.log
check '[ $rc -eq 0 ]' "the GIMP suites against the installed release (exit $rc)"
[ $rc -eq 0 ] || tail -60 /tmp/suites.log

sh "$home/uninstall.sh" >/dev/null 2>&1
left=$(while read -r p; do [ -e "$p" ] || [ -L "$p" ] && [ ! -d "$p" ] && echo "$p"; done </tmp/added)
check '[ -z "$left" ]' "after the suites, uninstall.sh leaves none of its files${left:+: $left}"
rm -rf "$HOME" "$unpacked"
echo "test-release: $failures failure(s)"
[ $failures -eq 0 ]
