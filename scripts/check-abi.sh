#!/bin/sh
# The release's ABI floor: each ELF file given (the plug-in, the GEGL module
# and the engine) NEEDs only GIMP's, GEGL's, babl's, GLib's, GTK's, cairo's
# and pango's libraries, libc, libm, libstdc++, libgcc_s and the engine, and
# no symbol version past the oldest runtime Flathub's GIMP runs on (GNOME 48:
# glibc 2.40, GCC 14).  Prints each file's newest versions; fails naming
# what is past the floor.
#   scripts/check-abi.sh FILE...
set -u
[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
command -v objdump >/dev/null && command -v python3 >/dev/null || {
  echo "check-abi: objdump and python3 are needed" >&2; exit 2; }
for f in "$@"; do
  echo "== $f"
  objdump -p "$f" || echo "NOT-ELF"
done 2>/dev/null | python3 -c '
import re, sys
ALLOWED = re.compile(r"^(libgimp(base|ui|widgets|config|color|math|module|thumb)?-3\.0"
                     r"|libgegl-0\.4|libbabl-0\.1|lib(glib|gobject|gio|gmodule)-2\.0"
                     r"|lib(gtk|gdk)-3|libgdk_pixbuf-2\.0|libcairo(-gobject)?|libpango(cairo|ft2)?-1\.0"
                     r"|libharfbuzz|libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64"
                     r"|libcudaconvolve)\.so(\.[0-9]+)*$")
FLOOR = {"GLIBC": (2, 40), "GLIBCXX": (3, 4, 33), "CXXABI": (1, 3, 15), "GCC": (14, 0, 0)}
def version(s):
    return tuple(int(x) for x in s.split("."))
failures, name, files = 0, None, {}
for line in sys.stdin:
    if line.startswith("== "):
        name = line[3:].strip()
        files[name] = {"needed": [], "versions": {}, "elf": True}
        continue
    if line.strip() == "NOT-ELF":
        files[name]["elf"] = False
    m = re.match(r"\s+NEEDED\s+(\S+)", line)
    if m:
        files[name]["needed"].append(m.group(1))
    m = re.match(r"\s+0x[0-9a-f]+ 0x[0-9a-f]+ \d+ (GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)$", line)
    if m:
        tag, v = m.group(1), version(m.group(2))
        newest = files[name]["versions"].get(tag)
        files[name]["versions"][tag] = max(newest, v) if newest else v
for name, f in files.items():
    if not f["elf"] or not f["needed"]:
        print("FAIL - %s: not a linked ELF file" % name)
        failures += 1
        continue
    bad = [n for n in f["needed"] if not ALLOWED.match(n)]
    past = ["%s_%s (the floor: %s)" % (t, ".".join(map(str, v)), ".".join(map(str, FLOOR[t])))
            for t, v in sorted(f["versions"].items()) if v > FLOOR[t]]
    newest = ", ".join("%s_%s" % (t, ".".join(map(str, v))) for t, v in sorted(f["versions"].items()))
    if bad or past:
        failures += 1
        print("FAIL - %s: %s%s%s" % (name, "needs " + ", ".join(bad) if bad else "",
                                      "; " if bad and past else "",
                                      "past the floor: " + ", ".join(past) if past else ""))
    else:
        print("ok   - %s: %d libraries, all allowed; newest %s" % (name, len(f["needed"]), newest))
sys.exit(1 if failures else 0)
'
