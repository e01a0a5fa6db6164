#!/usr/bin/env python3
"""Writes a GIMP extension file (.gex) of one folder, named by the
extension's id, that GIMP installs with its Unix modes:
    scripts/make-gex.py FOLDER OUT.gex

GIMP unpacks a .gex with libarchive from a stream (file-data-gex.c, no seek
callback), so libarchive reads each entry's local header only, never the
central directory where zip tools keep Unix modes: without more, every
file comes out 0664 and GIMP will not run the plug-in.  So each local
header here also carries libarchive's own "xl" field (0x6c78: the version
made by and the external attributes), as bsdtar --options zip:experimental
writes it (release/flatpak/README.md)."""
import os
import stat
import struct
import sys
import time
import zipfile


def xl_field(mode):
    body = struct.pack("<BHHI", 7, (3 << 8) | 20, 0, mode << 16)
    return struct.pack("<HH", 0x6C78, len(body)) + body


def entries(folder):
    top = os.path.dirname(folder)
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        yield root, os.path.relpath(root, top) + "/"
        for name in sorted(files):
            path = os.path.join(root, name)
            yield path, os.path.relpath(path, top)


def main(folder, out):
    folder = folder.rstrip("/")
    with zipfile.ZipFile(out, "w") as z:
        for path, name in entries(folder):
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                sys.exit("make-gex: %s is a link, which GIMP does not follow" % path)
            info = zipfile.ZipInfo(name, time.localtime(st.st_mtime)[:6])
            info.create_system = 3
            info.external_attr = (st.st_mode << 16) | (0x10 if stat.S_ISDIR(st.st_mode) else 0)
            info.extra = xl_field(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                z.writestr(info, b"")
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as f:
                    z.writestr(info, f.read())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make-gex.py FOLDER OUT.gex")
    main(sys.argv[1], sys.argv[2])
