#!/bin/sh
# Removes what install.sh installed, by the list it kept
# (installed-files in the release's folder), and nothing else: files and
# links first, then the folders it made, where they are empty.
#
#   ./uninstall.sh [--system]
set -eu
name=gimp-cuda-convolve
system=no quiet=no
for a in "$@"; do
  case $a in
    --system) system=yes ;;
    --quiet) quiet=yes ;;
    -h|--help) awk 'NR >= 2 && NR <= 6 { print substr ($0, 3) }' "$0"; exit 0 ;;
    *) echo "usage: $0 [--system]" >&2; exit 2 ;;
  esac
done
if [ $system = yes ]; then
  [ "$(id -u)" = 0 ] || { echo "uninstall: --system needs root" >&2; exit 1; }
  home=
  for d in /usr/lib/x86_64-linux-gnu/gegl-0.4 /usr/lib64/gegl-0.4 /usr/lib/gegl-0.4; do
    [ -f "$d/$name/installed-files" ] && { home=$d/$name; break; }
  done
else
  home=${XDG_DATA_HOME:-$HOME/.local/share}/gegl-0.4/plug-ins/$name
fi
manifest=${home:+$home/installed-files}
if [ -z "$manifest" ] || [ ! -f "$manifest" ]; then
  echo "uninstall: gimp-cuda-convolve is not installed ${home:+in $home }(no installed-files)" >&2
  exit 1
fi
# Its list is read whole first: the list itself goes with the folder.
list=$(cat "$manifest")
rm -f "$manifest"
echo "$list" | while IFS= read -r p; do
  case $p in */) ;; ?*) rm -f "$p" ;; esac
done
# Folders innermost first (the list has them outermost first).
echo "$list" | grep '/$' | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }' |
while IFS= read -r d; do
  rmdir "$d" 2>/dev/null || true
done
[ $quiet = yes ] || echo "removed gimp-cuda-convolve: $(echo "$list" | grep -c .) files, links and folders that install.sh made"
