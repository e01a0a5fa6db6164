#!/bin/sh
# Installs gimp-cuda-convolve from this folder, for you (no root) or, with
# --system, for everyone: the convolution for GIMP 3 on an NVIDIA GPU
# (plug-in-cuda-convolve), the GEGL operation cuda:convolve, and the
# cuda-convolve tool; for you, also into Flathub's GIMP where it finds it.
# Needs GIMP 3.0 or 3.2 and, for the GPU, the NVIDIA driver (580 or later);
# nothing else.  Run it again to upgrade in place; uninstall.sh removes
# exactly what it installed.
#
#   ./install.sh [--system]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
name=gimp-cuda-convolve
plugin=plug-in-cuda-convolve

usage () { echo "usage: $0 [--system]" >&2; exit 2; }
system=no flag=
for a in "$@"; do
  case $a in
    --system) system=yes flag=--system ;;
    -h|--help) awk 'NR >= 2 && NR <= 10 { print substr ($0, 3) }' "$0"; exit 0 ;;
    *) usage ;;
  esac
done

# Where things go.  The release's folder (H) lies inside GEGL's module
# folder, where the GEGL module finds the engine beside it; the plug-in and
# the tool are links to their files in H, so that each loads the one engine.
# Flathub's GIMP (org.gimp.GIMP) gets a folder of its own in its sandbox's
# data, which it sees at the same path: GEGL there reads
# $XDG_DATA_HOME/gegl-0.4/plug-ins, and GIMP its profiles' plug-ins.
flatpak_app=$HOME/.var/app/org.gimp.GIMP
flatpak_dirs= flatpak_seen=no
if [ $system = yes ]; then
  [ "$(id -u)" = 0 ] || { echo "install: --system needs root" >&2; exit 1; }
  gegl_dir=
  for d in /usr/lib/x86_64-linux-gnu/gegl-0.4 /usr/lib64/gegl-0.4 /usr/lib/gegl-0.4; do
    [ -d "$d" ] && { gegl_dir=$d; break; }
  done
  [ -n "$gegl_dir" ] || { echo "install: GEGL 0.4's module folder was not found: is GIMP 3 installed?" >&2; exit 1; }
  plugin_dirs=
  for d in /usr/lib/x86_64-linux-gnu/gimp/3.0/plug-ins /usr/lib64/gimp/3.0/plug-ins /usr/lib/gimp/3.0/plug-ins; do
    [ -d "$d" ] && plugin_dirs="$plugin_dirs $d"
  done
  bin_dir=/usr/local/bin
else
  gegl_dir=${XDG_DATA_HOME:-$HOME/.local/share}/gegl-0.4/plug-ins
  config=${XDG_CONFIG_HOME:-$HOME/.config}/GIMP
  # Every GIMP 3 profile there is, and one for each GIMP 3 installed here
  # that has not started yet (its profile is named for its version).
  versions=
  for d in "$config"/3.*; do [ -d "$d" ] && versions="$versions ${d##*/}"; done
  for c in gimp-console-3.0 gimp-console-3.2 gimp-console-3.4 gimp-console-3.6; do
    command -v $c >/dev/null 2>&1 && versions="$versions ${c#gimp-console-}"
  done
  plugin_dirs=
  for v in $(echo $versions | tr ' ' '\n' | grep -E '^3\.[0-9]+$' | sort -u); do
    plugin_dirs="$plugin_dirs $config/$v/plug-ins"
  done
  bin_dir=$HOME/.local/bin
  # Flathub's GIMP: each of its profiles, or the version flatpak reports
  # where it has not started yet.
  if [ -d "$flatpak_app" ] ||
     { command -v flatpak >/dev/null 2>&1 && flatpak info org.gimp.GIMP >/dev/null 2>&1; }; then
    flatpak_seen=yes
    versions=
    for d in "$flatpak_app"/config/GIMP/3.*; do [ -d "$d" ] && versions="$versions ${d##*/}"; done
    if [ -z "$versions" ] && command -v flatpak >/dev/null 2>&1; then
      versions=$(flatpak info org.gimp.GIMP 2>/dev/null |
                 awk '/^ *Version:/ { split ($2, v, "."); print v[1] "." v[2] }')
    fi
    for v in $(echo $versions | tr ' ' '\n' | grep -E '^3\.[0-9]+$' | sort -u); do
      flatpak_dirs="$flatpak_dirs $flatpak_app/config/GIMP/$v/plug-ins"
    done
  fi
fi
if [ -z "$plugin_dirs" ] && [ -z "$flatpak_dirs" ]; then
  if [ $flatpak_seen = yes ]; then
    echo "install: Flathub's GIMP (org.gimp.GIMP) has no GIMP 3 profile yet: start it once," >&2
    echo "  quit it, then run this again." >&2
  else
    echo "install: no GIMP 3 was found (gimp-console-3.0 or 3.2, a GIMP 3 profile, or" >&2
    echo "  Flathub's org.gimp.GIMP)" >&2
  fi
  exit 1
fi

made=""
note () { made="$made$1
"; }
mkdirs ()   # the folders of a path that do not exist yet, noted outermost first
{
  [ -d "$1" ] && return 0
  mkdirs "$(dirname "$1")"
  mkdir "$1" && note "$1/"
}
put ()   # put SOURCE DEST MODE
{
  cp "$1" "$2.new" && chmod "$3" "$2.new" && mv -f "$2.new" "$2" && note "$2"
}
link ()   # link TARGET NAME
{
  ln -sfn "$1" "$2" && note "$2"
}

# install_into GEGL_DIR PLUGIN_DIRS [BIN_DIR]: the engine, the plug-in and
# the presets in GEGL_DIR/gimp-cuda-convolve (and the tool, where BIN_DIR is
# given), the GEGL module beside it, the plug-in in each of PLUGIN_DIRS,
# and the list of what it made there.  An earlier install there goes first,
# by its own list.
install_into ()
{
  home=$1/$name
  if [ -f "$home/installed-files" ]; then
    sh "$here/uninstall.sh" $flag --quiet --only "$home"
  fi
  made=""
  mkdirs "$home/presets"
  put "$here/lib/libcudaconvolve.so.0" "$home/libcudaconvolve.so.0" 755
  put "$here/$plugin/$plugin" "$home/$plugin" 755
  [ -z "${3:-}" ] || put "$here/bin/cuda-convolve" "$home/cuda-convolve" 755
  for p in "$here/$plugin/presets/"*.preset; do put "$p" "$home/presets/${p##*/}" 644; done
  put "$here/uninstall.sh" "$home/uninstall.sh" 755
  put "$here/gegl/cuda-convolve-gpl3.so" "$1/cuda-convolve-gpl3.so" 755
  for d in $2; do
    mkdirs "$d/$plugin"
    link "$home/$plugin" "$d/$plugin/$plugin"
    link "$home/presets" "$d/$plugin/presets"
  done
  if [ -n "${3:-}" ]; then
    mkdirs "$3"
    link "$home/cuda-convolve" "$3/cuda-convolve"
  fi
  printf '%s' "$made" >"$home/installed-files"
}

echo "installed gimp-cuda-convolve $(cat "$here/VERSION" 2>/dev/null):"
if [ -n "$plugin_dirs" ]; then
  install_into "$gegl_dir" "$plugin_dirs" "$bin_dir"
  echo "  for this system's GIMP: the engine, the plug-in, the tool and the presets in"
  echo "    $gegl_dir/$name"
  echo "    the GEGL operation cuda:convolve in $gegl_dir"
  for d in $plugin_dirs; do echo "    the plug-in for GIMP in $d/$plugin"; done
  echo "    the tool as $bin_dir/cuda-convolve"
fi
if [ -n "$flatpak_dirs" ]; then
  install_into "$flatpak_app/data/gegl-0.4/plug-ins" "$flatpak_dirs"
  echo "  for Flathub's GIMP (org.gimp.GIMP): the engine, the plug-in and the presets in"
  echo "    $flatpak_app/data/gegl-0.4/plug-ins/$name"
  echo "    the GEGL operation cuda:convolve in $flatpak_app/data/gegl-0.4/plug-ins"
  for d in $flatpak_dirs; do echo "    the plug-in for GIMP in $d/$plugin"; done
  echo "    (its sandbox reaches the GPU through Flathub's NVIDIA driver extension,"
  echo "    org.freedesktop.Platform.GL.nvidia-*, of your driver's version)"
fi
echo "Restart GIMP, then Filters > Generic > CUDA Convolution Matrix...  To remove it all:"
echo "  $home/uninstall.sh $flag"
if [ -n "$plugin_dirs" ]; then
  case ":$PATH:" in *":$bin_dir:"*) ;; *) echo "($bin_dir is not on your PATH: add it to run cuda-convolve by name.)" ;; esac
fi
