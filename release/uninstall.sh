#!/bin/sh
# Removes what install.sh installed, by the lists it kept (installed-files
# in each of its folders: this system's GIMP's and Flathub's GIMP's), and
# nothing else: files and links first, then the folders it made, where they
# are empty.
#
#   ./uninstall.sh [--system]
set -eu
name=gimp-cuda-convolve
system=no quiet=no only=
while [ $# -gt 0 ]; do
  case $1 in
    --system) system=yes ;;
    --quiet) quiet=yes ;;
    --only) only=$2; shift ;;    # install.sh's upgrade: that folder alone
    -h|--help) awk 'NR >= 2 && NR <= 7 { print substr ($0, 3) }' "$0"; exit 0 ;;
    *) echo "usage: $0 [--system]" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$only" ]; then
  homes=$only
elif [ $system = yes ]; then
  [ "$(id -u)" = 0 ] || { echo "uninstall: --system needs root" >&2; exit 1; }
  homes=
  for d in /usr/lib/x86_64-linux-gnu/gegl-0.4 /usr/lib64/gegl-0.4 /usr/lib/gegl-0.4; do
    [ -f "$d/$name/installed-files" ] && { homes=$d/$name; break; }
  done
else
  homes=
  for d in "${XDG_DATA_HOME:-$HOME/.local/share}/gegl-0.4/plug-ins/$name" \
           "$HOME/.var/app/org.gimp.GIMP/data/gegl-0.4/plug-ins/$name"; do
    [ -f "$d/installed-files" ] && homes="$homes $d"
  done
fi
if [ -z "$homes" ]; then
  echo "uninstall: gimp-cuda-convolve is not installed (no installed-files)" >&2
  exit 1
fi
for home in $homes; do
  # Its list is read whole first: the list itself goes with the folder.
  list=$(cat "$home/installed-files")
  rm -f "$home/installed-files"
  echo "$list" | while IFS= read -r p; do
    case $p in */) ;; ?*) rm -f "$p" ;; esac
  done
  # Folders innermost first (the list has them outermost first).
  echo "$list" | grep '/$' | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }' |
  while IFS= read -r d; do
    rmdir "$d" 2>/dev/null || true
  done
  [ $quiet = yes ] || echo "removed gimp-cuda-convolve from $home: $(echo "$list" | grep -c .) files, links and folders that install.sh made"
done
