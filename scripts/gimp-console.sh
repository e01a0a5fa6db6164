#!/bin/sh
# Prints the path of GIMP 3's console as this system installs it: GIMP 3.2
# installs gimp-console-3.2, 3.0 gimp-console-3.0, both gimp-console-3 and
# gimp-console.  A plain gimp-console counts only if it says it is GIMP 3.
# Exits 1, printing nothing, where there is none.
for name in gimp-console-3 gimp-console-3.2 gimp-console-3.0; do
  command -v "$name" && exit 0
done
if console=$(command -v gimp-console) &&
   "$console" --version 2>/dev/null | grep -q 'version 3\.'; then
  echo "$console"
  exit 0
fi
exit 1
