#!/bin/sh
# Runs a command where GIMP 3 is: natively where the distribution packages
# it, else inside the Debian 13 root (scripts/gimp-root.sh).  Installs what
# is missing first (scripts/setup.sh), as root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
where=$("$here/setup.sh")
if [ "$where" = root ]; then
  exec "$here/gimp-root.sh" run "$@"
fi
exec "$@"
