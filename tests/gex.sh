#!/bin/sh
# The release's GIMP extension (.gex) as a user installs it, in a GIMP root
# (run by scripts/test-release.sh inside the user's root): GIMP's own
# file-gex-load (what File > Open runs) unpacks it into a new profile with
# the plug-in and the engine executable; the user switches it on (what the
# Extensions dialog writes to extensionrc) and restarts GIMP, which then
# registers the three procedures from the extension's folder; the plug-in runs
# on a layer without the GEGL module, and says how to add the operation.
#   sh tests/gex.sh GEX
set -u
gex=$1
id=org.gimp.extension.cuda-convolve
failures=0
ok () { echo "ok   - $*"; }
fail () { echo "FAIL - $*"; failures=$((failures + 1)); }
gimp=$(sh scripts/gimp-console.sh) || { echo "SKIP: no GIMP 3 console"; exit 77; }
[ -f "$gex" ] || { echo "FAIL - no $gex"; exit 1; }
home=$(mktemp -d /home/gex.XXXXXX)
trap 'rm -rf "$home"' EXIT
export HOME=$home GEX=$gex
unset GIMP3_DIRECTORY XDG_CONFIG_HOME XDG_DATA_HOME GEGL_PATH
batch () { timeout 300 "$gimp" -i --batch-interpreter=python-fu-eval -b "$1" --quit 2>&1; }

batch 'from gi.repository import Gimp, Gio
import os
proc = Gimp.get_pdb().lookup_procedure("file-gex-load")
cfg = proc.create_config()
cfg.set_property("run-mode", Gimp.RunMode.NONINTERACTIVE)
cfg.set_property("file", Gio.File.new_for_path(os.environ["GEX"]))
print("gex-load:", proc.run(cfg).index(0) == Gimp.PDBStatusType.SUCCESS)' >"$home/load.log"
profile=$(ls -d "$home"/.config/GIMP/3.* 2>/dev/null | head -1)
folder=$profile/extensions/$id
if grep -q '^gex-load: True' "$home/load.log" && [ -d "$folder" ]; then
  ok "file-gex-load unpacks it into ${folder#$home/}"
else
  fail "file-gex-load: $(cat "$home/load.log")"
fi
modes=$(cd "$folder/plug-in-cuda-convolve" 2>/dev/null &&
        stat -c '%a %n' plug-in-cuda-convolve libcudaconvolve.so.0 | tr '\n' ' ')
[ "$modes" = "755 plug-in-cuda-convolve 755 libcudaconvolve.so.0 " ] &&
  ok "the plug-in and the engine are executable ($modes)" ||
  fail "the plug-in and the engine's modes: '$modes'"

# Switched on as the Extensions dialog does it, the other extensions kept.
rc=$profile/extensionrc
if grep -q "\"$id\"" "$rc" 2>/dev/null; then
  sed -i "/\"$id\"/,/active/s/(active no)/(active yes)/" "$rc"
else
  printf '(GimpExtension "%s"\n    (active yes))\n' "$id" >>"$rc"
fi
batch "exec(open('$(pwd)/tests/installed.py').read())" >"$home/run.log"
grep -q '^procedures: True True True$' "$home/run.log" &&
  grep -q "^(plug-in-def \"\${gimp_dir}/extensions/$id/plug-in-cuda-convolve/" "$profile/pluginrc" &&
  ok "after a restart GIMP registers the three procedures (the estimate with its arguments and return values) from the extension" ||
  fail "registered: $(grep -E '^procedures' "$home/run.log"); pluginrc: $(grep -o 'plug-in-def "[^"]*cuda[^"]*"' "$profile/pluginrc" 2>/dev/null)"
grep -q '^procedure: True' "$home/run.log" &&
  ok "plug-in-cuda-convolve from the extension changes a layer" ||
  fail "the procedure: $(cat "$home/run.log")"
grep -q 'install.sh' "$home/run.log" &&
  ok "without the GEGL module it says how to add the operation" ||
  fail "no word on adding the operation: $(grep -i 'operation' "$home/run.log")"
echo "gex: $failures failure(s)"
[ $failures -eq 0 ]
