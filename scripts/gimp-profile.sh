#!/bin/sh
# A scratch GIMP profile that finds the plug-in where it was built:
#
#   scripts/gimp-profile.sh PROFILE PLUG-INS
#
# writes PROFILE/gimprc with PLUG-INS (the build tree's plug-ins folder) on
# GIMP's plug-in path and the welcome dialog off.  Used by run-gimp.sh,
# screenshot.sh and tests/test-gimp.sh.
set -eu
mkdir -p "$1"
cat >"$1/gimprc" <<EOT
(plug-in-path "\${gimp_plug_in_dir}/plug-ins:$2")
(show-welcome-dialog no)
EOT
