#!/bin/sh
# Flathub's GIMP, emulated in a GIMP root as its sandbox sees a user's home
# (run by scripts/test-release.sh inside the user's root, with the unpacked
# release): no GIMP on PATH for install.sh, a home with
# ~/.var/app/org.gimp.GIMP, and GIMP run with XDG_CONFIG_HOME and
# XDG_DATA_HOME inside it, as Flatpak sets them.
# - Its folder with no profile yet: install.sh says to start GIMP once and
#   writes nothing.
# - With a profile: install.sh installs into that profile's plug-ins and the
#   sandbox's GEGL module folder only, and says so; GIMP there registers the
#   plug-in from that profile and maps the operation from that folder, and
#   the procedure and cuda:convolve run and change a layer; where bwrap can
#   make a sandbox, the same in one where only the app's folder is
#   writable; uninstall.sh leaves the home as it was.
# CC_EXPECT_GPU=1: the procedure asks for a GPU method, and must have run on
# the GPU.
#   sh tests/flatpak-emulated.sh RELEASE_DIR
set -u
release=$1
failures=0
ok () { echo "ok   - $*"; }
fail () { echo "FAIL - $*"; failures=$((failures + 1)); }
gimp=$(sh scripts/gimp-console.sh) || { echo "SKIP: no GIMP 3 console"; exit 77; }
version=$("$gimp" --version | sed -n 's/.*version \([0-9]*\.[0-9]*\).*/\1/p')
here=$(pwd)
nogimp=$(mktemp -d)
for f in /usr/bin/*; do case ${f##*/} in gimp*) ;; *) ln -s "$f" "$nogimp/" ;; esac; done
flat=$(mktemp -d /home/flat.XXXXXX)
app=$flat/.var/app/org.gimp.GIMP
trap 'rm -rf "$nogimp" "$flat"' EXIT

mkdir -p "$app"
HOME=$flat PATH=$nogimp sh "$release/install.sh" >/tmp/flat.log 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'start it once' /tmp/flat.log && [ "$(find "$flat" | wc -l)" -eq 4 ]; then
  ok "Flathub's GIMP with no profile yet: install.sh says to start it once, writes nothing"
else
  fail "Flathub's GIMP with no profile: exit $rc, $(find "$flat" | wc -l) paths: $(cat /tmp/flat.log)"
fi

mkdir -p "$app/config/GIMP/$version"
find "$flat" | sort >/tmp/flat-before
HOME=$flat PATH=$nogimp sh "$release/install.sh" >/tmp/flat.log 2>&1
rc=$?
find "$flat" | sort >/tmp/flat-after
modules=$app/data/gegl-0.4/plug-ins
profile=$app/config/GIMP/$version
outside=$(comm -13 /tmp/flat-before /tmp/flat-after | while read -r p; do
  case "$p" in "$modules"|"$modules"/*|"$profile/plug-ins"|"$profile/plug-ins"/*) ;;
               "$app/data"|"$app/data/gegl-0.4") ;; *) echo "$p" ;; esac
done)
if [ $rc -eq 0 ] && grep -q "Flathub's GIMP" /tmp/flat.log && [ -z "$outside" ] &&
   ! grep -q "this system's GIMP" /tmp/flat.log; then
  ok "Flathub's GIMP $version alone: install.sh writes $(comm -13 /tmp/flat-before /tmp/flat-after | wc -l) paths, only in its profile's plug-ins and $modules, and says so"
else
  fail "install.sh into Flathub's GIMP: exit $rc${outside:+, outside its folders: $outside}: $(cat /tmp/flat.log)"
fi

HOME=$flat XDG_CONFIG_HOME=$app/config XDG_DATA_HOME=$app/data XDG_CACHE_HOME=$app/cache \
  timeout 300 "$gimp" -i --batch-interpreter=python-fu-eval -b "exec(open('$here/tests/installed.py').read())" \
  --quit >/tmp/flat-gimp.log 2>&1
registered=$(sed -n 's/^(plug-in-def "\([^"]*\/plug-in-cuda-convolve\)" .*/\1/p' \
               "$profile/pluginrc" 2>/dev/null | sed "s|\${gimp_dir}|$profile|")
mapped=$(sed -n 's/^mapped: *//p' /tmp/flat-gimp.log)
if [ "$registered" = "$profile/plug-ins/plug-in-cuda-convolve/plug-in-cuda-convolve" ] &&
   [ "$mapped" = "$(readlink -f "$modules/cuda-convolve-gpl3.so")" ]; then
  ok "GIMP as Flatpak runs it registers the plug-in from its profile and maps the operation from $modules"
else
  fail "GIMP as Flatpak runs it: registered '$registered', mapped '$mapped': $(tail -5 /tmp/flat-gimp.log)"
fi
if grep -q '^procedures: True True True$' /tmp/flat-gimp.log && grep -q '^operation: True' /tmp/flat-gimp.log &&
   grep -q '^procedure: True' /tmp/flat-gimp.log && grep -q '^op: True' /tmp/flat-gimp.log; then
  ok "there, the three procedures are registered (the estimate with its arguments and return values) and cuda:convolve exists; the procedure (box-5) and the operation (disc) change a layer"
else
  fail "there: $(grep -E '^(procedures|operation|procedure|op):' /tmp/flat-gimp.log | tr '\n' ' ') $(tail -5 /tmp/flat-gimp.log)"
fi

# What ran; with CC_EXPECT_GPU=1 (on a GPU machine), it must be the GPU.
ran=$(sed -n 's/^ran: //p' /tmp/flat-gimp.log)
echo "     the procedure ran $ran"
if [ -n "${CC_EXPECT_GPU:-}" ]; then
  case $ran in
    cpu*|"") fail "the procedure did not run on the GPU: '$ran'" ;;
    *) ok "the procedure ran on the GPU: $ran" ;;
  esac
fi

# Where bubblewrap can make a sandbox (the GIMP 3.2 root has it), GIMP again
# as Flatpak confines it: everything read-only but the app's folder under
# ~/.var/app, a private /tmp, and /dev (the GPU); this clone, where
# tests/installed.py is, read-only again on top of that /tmp.
if command -v bwrap >/dev/null && bwrap --ro-bind / / --dev-bind /dev /dev true 2>/dev/null; then
  HOME=$flat XDG_CONFIG_HOME=$app/config XDG_DATA_HOME=$app/data XDG_CACHE_HOME=$app/cache \
    timeout 300 bwrap --ro-bind / / --dev-bind /dev /dev --proc /proc --tmpfs /tmp \
      --ro-bind "$here" "$here" --bind "$app" "$app" \
      "$gimp" -i --batch-interpreter=python-fu-eval -b "exec(open('$here/tests/installed.py').read())" \
      --quit >/tmp/flat-bwrap.log 2>&1
  if grep -q '^procedures: True True True$' /tmp/flat-bwrap.log &&
     grep -q '^operation: True' /tmp/flat-bwrap.log && grep -q '^procedure: True' /tmp/flat-bwrap.log &&
     grep -q '^op: True' /tmp/flat-bwrap.log; then
    ok "in a bubblewrap sandbox, only $app writable: the procedure ($(sed -n 's/^ran: //p' /tmp/flat-bwrap.log)) and the operation change a layer"
  else
    fail "in a bubblewrap sandbox: $(grep -E '^(procedures|operation|procedure|op):' /tmp/flat-bwrap.log | tr '\n' ' ') $(tail -5 /tmp/flat-bwrap.log)"
  fi
else
  echo "SKIP - a bubblewrap sandbox: $(command -v bwrap >/dev/null && echo 'bwrap cannot make one here' || echo 'no bwrap here')"
fi

# GIMP wrote its own files in the profile meanwhile: only install.sh's go.
HOME=$flat sh "$modules/gimp-cuda-convolve/uninstall.sh" >/tmp/flat-un.log 2>&1
left=$(comm -13 /tmp/flat-before /tmp/flat-after | while read -r p; do
  [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done)
if [ -z "$left" ]; then
  ok "uninstall.sh removes every path install.sh made there ($(cat /tmp/flat-un.log))"
else
  fail "uninstall.sh left: $left"
fi
echo "Flathub's GIMP, emulated: $failures failure(s)"
[ $failures -eq 0 ]
