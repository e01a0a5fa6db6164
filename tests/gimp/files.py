# cuda-convolve's results open in GIMP as GIMP's own.  GIMP exports one
# photograph-like image in every format the tool reads (PNG 8 and 16-bit,
# JPEG, TIFF 8, 16-bit and float from linear and perceptual images with and
# without a profile, OpenEXR, WebP), and the test makes the few files GIMP
# does not write (a PNG whose colour is in gAMA and cHRM chunks, a JPEG with
# Exif orientation and colour space tags).  The tool convolves each file
# with a preset; GIMP opens each output, which must be the same kind of
# image (precision, base type, alpha, size and colour space) and hold the
# same values as plug-in-cuda-convolve's result on GIMP's own load of the
# input: within one step for integer encodings, 1e-4 for float.  JPEG and
# WebP inputs are compared through a PNG output (their own outputs are
# lossy); their lossy outputs must still open as the same kind of image.
#
# Run by tests/test-gimp.sh inside GIMP 3's console (python-fu-eval), with
# the tool in CC_TOOL and a scratch folder in CC_FILES_DIR.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.environ["CC_TEST_DIR"])
from helpers import *  # noqa: E402,F401,F403

from gi.repository import Gio  # noqa: E402

TOOL = os.environ["CC_TOOL"]
WORK = os.environ["CC_FILES_DIR"]
W, H = 96, 64
BASES = {"RGB": Gimp.ImageBaseType.RGB, "GRAY": Gimp.ImageBaseType.GRAY}
STRUCT = {"u8": "B", "u16": "H", "u32": "I", "half": "e", "float": "f", "double": "d"}
totals = {"files": 0, "samples": 0}


def made(precision, base="RGB", alpha=False, profile=None):
    """A photograph-like image (helpers.photo, linear light written as
    such), in that precision and profile."""
    image = Gimp.Image.new_with_precision(W, H, BASES[base], precision)
    if profile:
        image.set_color_profile(profile)
    gray = base == "GRAY"
    ltype = {(False, False): Gimp.ImageType.RGB_IMAGE, (False, True): Gimp.ImageType.RGBA_IMAGE,
             (True, False): Gimp.ImageType.GRAY_IMAGE,
             (True, True): Gimp.ImageType.GRAYA_IMAGE}[(gray, alpha)]
    layer = Gimp.Layer.new(image, "photo", W, H, ltype, 100, Gimp.LayerMode.NORMAL)
    image.insert_layer(layer, None, 0)
    channels = (1 if gray else 3) + (1 if alpha else 0)
    model = ("Y" if gray else "RGB") + ("A" if alpha else "")
    Pixels(layer, "%s float" % model, "float", channels).write(
        photo(W, H, channels - (1 if alpha else 0), alpha))
    return image


def export(image, proc, path, **options):
    p = pdb.lookup_procedure(proc)
    cfg = p.create_config()
    cfg.set_property("image", image)
    cfg.set_property("file", Gio.File.new_for_path(path))
    for key, value in options.items():
        cfg.set_property(key.replace("_", "-"), value)
    return p.run(cfg).index(0) == Gimp.PDBStatusType.SUCCESS


def load(path):
    """The file as File > Open gives it: gimp-file-load, then GIMP's policy
    for Exif orientation applied as File > Open applies it by default."""
    image = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(path))
    image.policy_rotate(False)
    return image


def encoding(image):
    return Babl.format_get_encoding(image.get_layers()[0].get_format())


def read(image, fmt):
    layer = image.get_layers()[0]
    w, h = layer.get_width(), layer.get_height()
    data = bytes(layer.get_buffer().get(Gegl.Rectangle.new(0, 0, w, h), 1.0, fmt,
                                        Gegl.AbyssPolicy.NONE))
    code = STRUCT[fmt.split()[-1]]
    return struct.unpack("<%d%s" % (len(data) // struct.calcsize(code), code), data)


def builtin(image):
    """GIMP's built-in profile for the image's base type and linearity."""
    linear = image.get_precision().value_nick.endswith("-linear") and \
        "non-linear" not in image.get_precision().value_nick
    if image.get_base_type() == Gimp.ImageBaseType.GRAY:
        return Gimp.ColorProfile.new_d65_gray_linear() if linear else \
            Gimp.ColorProfile.new_d65_gray_srgb_trc()
    return Gimp.ColorProfile.new_rgb_srgb_linear() if linear else Gimp.ColorProfile.new_rgb_srgb()


def own_values(image):
    """The layer's samples as stored: GEGL converts what it reads into the
    format asked for in babl's sRGB, so they are read from a copy of the
    image given GIMP's built-in profile instead (which converts nothing)."""
    dup = image.duplicate()
    dup.set_color_profile(builtin(dup))
    values = read(dup, encoding(dup))
    dup.delete()
    return values


def kind(image):
    layer = image.get_layers()[0]
    return (image.get_precision().value_nick, image.get_base_type().value_nick,
            layer.has_alpha(), layer.get_width(), layer.get_height())


def same_space(out, want):
    """The output's codes mean the same colours in its own profile as in the
    procedure's image's profile."""
    dup = out.duplicate()
    dup.set_color_profile(want.get_color_profile() or builtin(want))
    colour = ("Y" if out.get_base_type() == Gimp.ImageBaseType.GRAY else "RGB") + \
        ("A" if out.get_layers()[0].has_alpha() else "") + " float"
    a, b = read(out, colour), read(dup, colour)
    dup.delete()
    return max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b))


def integer(enc):
    return enc.split()[-1] in ("u8", "u16", "u32")


def mean_error(a, b):
    return sum(abs(x - y) for x, y in zip(a, b)) / len(a)


def codec_error(image, ext):
    """How far GIMP's own export of 'image' to a lossy format lands from it:
    the codec's loss at its default quality."""
    f = path("gimp-export" + ext)
    export(image, {".jpg": "file-jpeg-export", ".webp": "file-webp-export"}[ext], f)
    back = load(f)
    e = mean_error(own_values(back), own_values(image))
    back.delete()
    return e


def compare(what, out, want, lossy=None):
    """Same kind, same space, same values; a lossy output (its extension in
    'lossy') within the codec's loss: as near the procedure's result on
    average as GIMP's own export of that result, with some room for the
    other encoder."""
    enc = encoding(want)
    ok = check(kind(out) == kind(want), "%s: opens as %s (GIMP's load and procedure: %s)"
               % (what, kind(out), kind(want)))
    ok = check(same_space(out, want) <= 1e-4, "%s: the same colour space as GIMP's load"
               % what) and ok
    if not ok:
        return
    got, ref = own_values(out), own_values(want)
    diffs = [abs(g - r) for g, r in zip(got, ref)]
    worst = max(diffs)
    if lossy:
        mean, gimp = sum(diffs) / len(diffs), codec_error(want, lossy)
        check(mean <= 1.5 * gimp + 0.5,
              "%s: %d samples, mean %.2f steps from the procedure's result (GIMP's own "
              "export of it: %.2f), worst %d" % (what, len(diffs), mean, gimp, worst))
        return
    bound = 1 if integer(enc) else 1e-4
    n = sum(1 for d in diffs if d > 0)
    if check(len(got) == len(ref) and worst <= bound,
             "%s: %d samples, %d differ, worst %.3g%s (bound %g)"
             % (what, len(diffs), n, worst, " steps" if integer(enc) else "", bound)):
        totals["files"] += 1
        totals["samples"] += len(diffs)


def case(what, src, preset, outs=(None,), perceptual=False):
    """GIMP's load of 'src' and the procedure on it, against the tool's
    output in each of 'outs' (None: src's own format; lossy formats are
    checked for their kind and the codec's error)."""
    gimp = load(src)
    layer = gimp.get_layers()[0]
    status, values = run(gimp, [layer], preset=preset, linear=not perceptual)
    if not check(status == Gimp.PDBStatusType.SUCCESS, "%s: the procedure runs (%s)"
                 % (what, values)):
        return
    for ext in outs:
        base, own = os.path.splitext(src)
        out = "%s-out%s" % (base, ext or own)
        args = [TOOL, "--preset", preset] + (["--perceptual"] if perceptual else []) + [src, out]
        r = subprocess.run(args, capture_output=True, text=True)
        if check(r.returncode == 0, "%s: cuda-convolve %s writes %s (%s)"
                 % (what, preset, os.path.basename(out), r.stderr.strip())):
            lossy = (ext or own) if (ext or own) in (".jpg", ".webp") else None
            compare("%s -> %s" % (what, (ext or own)[1:].upper()), load(out), gimp, lossy)
    gimp.delete()


def path(name):
    return os.path.join(WORK, name)


# ---- Files GIMP does not write ---------------------------------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + \
        struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)


def png_gamma_chrm(name, gamma, chrm):
    """An 8-bit RGB PNG whose colour is a gAMA and a cHRM chunk, no iCCP or
    sRGB: GIMP makes a profile of them."""
    rows = b"".join(b"\0" + bytes(min(255, int(round(v ** (1 / 2.2) * 255))) for p in row
                                  for v in p) for row in photo(W, H, 3, False))
    data = (b"\x89PNG\r\n\x1a\n" +
            png_chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) +
            png_chunk(b"gAMA", struct.pack(">I", int(round(gamma * 100000)))) +
            png_chunk(b"cHRM", struct.pack(">8I", *[int(round(c * 100000)) for c in chrm])) +
            png_chunk(b"IDAT", zlib.compress(rows)) + png_chunk(b"IEND", b""))
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def exif_app1(orientation, colour_space):
    """An Exif APP1 segment: IFD0 with Orientation and a pointer to an Exif
    IFD holding ColorSpace."""
    def entry(tag, typ, value):
        return struct.pack("<HHI", tag, typ, 1) + (struct.pack("<HH", value, 0) if typ == 3
                                                   else struct.pack("<I", value))
    ifd0_size = 2 + 2 * 12 + 4
    ifd0 = struct.pack("<H", 2) + entry(0x0112, 3, orientation) + \
        entry(0x8769, 4, 8 + ifd0_size) + struct.pack("<I", 0)
    exif_ifd = struct.pack("<H", 1) + entry(0xA001, 3, colour_space) + struct.pack("<I", 0)
    body = b"Exif\0\0" + b"II*\0" + struct.pack("<I", 8) + ifd0 + exif_ifd
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def with_exif(src, name, orientation, colour_space):
    with open(src, "rb") as f:
        data = f.read()
    at = 2
    if data[2:4] == b"\xff\xe0":   # after JFIF's APP0
        at = 4 + struct.unpack(">H", data[4:6])[0]
    with open(path(name), "wb") as f:
        f.write(data[:at] + exif_app1(orientation, colour_space) + data[at:])
    return path(name)


# ---- The cases ----------------------------------------------------------------

P = Gimp.Precision
adobe = Gimp.ColorProfile.new_rgb_adobe()


def exported(name, image, proc, **options):
    if proc == "file-tiff-export":
        options["include_thumbnail"] = False   # a second page GIMP loads as a layer
    ok = check(export(image, proc, path(name), **options), "GIMP exports %s" % name)
    image.delete()
    return path(name) if ok else None


def test_png():
    f = exported("rgb8.png", made(P.U8_NON_LINEAR), "file-png-export")
    f and case("PNG 8-bit RGB", f, "sharpen")
    f = exported("rgba8.png", made(P.U8_NON_LINEAR, alpha=True), "file-png-export")
    f and case("PNG 8-bit RGBA", f, "gaussian-5")
    f = exported("gray8.png", made(P.U8_NON_LINEAR, "GRAY"), "file-png-export")
    f and case("PNG 8-bit gray", f, "emboss")
    f = exported("adobe16.png", made(P.U16_NON_LINEAR, profile=adobe), "file-png-export",
                 include_color_profile=True)
    f and case("PNG 16-bit RGB, Adobe RGB profile", f, "emboss")
    f = exported("linear16.png", made(P.U16_LINEAR), "file-png-export",
                 include_color_profile=True)
    f and case("PNG 16-bit RGB from a linear image, its linear profile", f, "box-5")
    f and case("PNG 16-bit RGB, linear profile, --perceptual", f, "box-5", perceptual=True)
    f = png_gamma_chrm("gamma.png", 1 / 1.8, (0.3127, 0.329, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06))
    case("PNG 8-bit RGB, gAMA 1/1.8 and cHRM, no profile", f, "box-5")


def test_jpeg():
    f = exported("rgb.jpg", made(P.U8_NON_LINEAR), "file-jpeg-export")
    # emboss: JPEG's decode, wherever it differs by a step, shows as several.
    f and case("JPEG RGB", f, "emboss", outs=(".png", None))
    f = exported("sub.jpg", made(P.U8_NON_LINEAR), "file-jpeg-export",
                 sub_sampling="sub-sampling-2x2")
    f and case("JPEG RGB, 4:2:0", f, "emboss", outs=(".png",))
    f = exported("adobe.jpg", made(P.U8_NON_LINEAR, profile=adobe), "file-jpeg-export",
                 include_color_profile=True)
    f and case("JPEG RGB, Adobe RGB profile", f, "sharpen", outs=(".png", None))
    f = exported("gray.jpg", made(P.U8_NON_LINEAR, "GRAY"), "file-jpeg-export")
    f and case("JPEG gray", f, "emboss", outs=(".png",))
    f = exported("cmyk.jpg", made(P.U8_NON_LINEAR), "file-jpeg-export", cmyk=True)
    f and case("JPEG CMYK", f, "sharpen", outs=(".png",))
    if f:
        f = with_exif(path("rgb.jpg"), "exif.jpg", 6, 2)
        case("JPEG RGB, Exif orientation 6 and Adobe RGB colour space", f, "emboss",
             outs=(".png",))


def test_tiff():
    f = exported("rgb8.tif", made(P.U8_NON_LINEAR), "file-tiff-export")
    f and case("TIFF 8-bit RGB", f, "sharpen")
    f = exported("rgb16.tif", made(P.U16_NON_LINEAR, profile=adobe), "file-tiff-export",
                 include_color_profile=True)
    f and case("TIFF 16-bit RGB, Adobe RGB profile", f, "emboss")
    f = exported("linear16.tif", made(P.U16_LINEAR), "file-tiff-export",
                 include_color_profile=True)
    f and case("TIFF 16-bit from a linear image, its profile", f, "box-5")
    f = exported("float-linear.tif", made(P.FLOAT_LINEAR), "file-tiff-export")
    f and case("TIFF float from a linear image, no profile", f, "box-5")
    f and case("TIFF float from a linear image, no profile, --perceptual", f, "box-5",
               perceptual=True)
    f = exported("float-linear-icc.tif", made(P.FLOAT_LINEAR, alpha=True), "file-tiff-export",
                 include_color_profile=True)
    f and case("TIFF float RGBA from a linear image, its profile", f, "box-5")
    f and case("TIFF float RGBA from a linear image, its profile, --perceptual", f, "box-5",
               perceptual=True)
    f = exported("float-perceptual.tif", made(P.FLOAT_NON_LINEAR, profile=adobe),
                 "file-tiff-export", include_color_profile=True)
    f and case("TIFF float from a perceptual image, Adobe RGB profile", f, "gaussian-5")


def test_exr():
    f = exported("rgba.exr", made(P.FLOAT_LINEAR, alpha=True), "file-exr-export")
    f and case("OpenEXR float RGBA", f, "box-5")
    f and case("OpenEXR float RGBA, --perceptual", f, "box-5", perceptual=True)
    f = exported("half.exr", made(P.HALF_LINEAR), "file-exr-export")
    f and case("OpenEXR half RGB", f, "sharpen")


def test_webp():
    f = exported("rgb.webp", made(P.U8_NON_LINEAR), "file-webp-export")
    f and case("WebP", f, "sharpen", outs=(".png", None))
    f = exported("adobe.webp", made(P.U8_NON_LINEAR, profile=adobe), "file-webp-export",
                 include_color_profile=True)
    f and case("WebP, Adobe RGB profile", f, "emboss", outs=(".png", None))


def test_mask_image():
    """The tool's --mask-image against the procedure's mask-drawable on GIMP's
    load of the same mask file: a 96x64 RGBA sRGB PNG (a 97x65 mask) and a
    16-bit Adobe RGB TIFF (its own luminance), on an 8-bit PNG."""
    src = path("rgb8.png")
    for name, image, proc, options in (
            ("mask.png", made(P.U8_NON_LINEAR, alpha=True), "file-png-export", {}),
            ("mask-adobe.tif", made(P.U16_NON_LINEAR, profile=adobe), "file-tiff-export",
             dict(include_color_profile=True))):
        f = exported(name, image, proc, **options)
        if not f:
            continue
        gimp, mask = load(src), load(f)
        status, values = run(gimp, [gimp.get_layers()[0]], mask_drawable=mask.get_layers()[0])
        out = path(name + "-out.png")
        r = subprocess.run([TOOL, "--mask-image", f, src, out], capture_output=True, text=True)
        if check(status == Gimp.PDBStatusType.SUCCESS and r.returncode == 0,
                 "mask %s: the procedure (%s) and the tool (%s) run"
                 % (name, values[0], r.stderr.strip())):
            compare("--mask-image %s, as mask-drawable" % name, load(out), gimp)
        gimp.delete()
        mask.delete()


test_png()
test_jpeg()
test_tiff()
test_exr()
test_webp()
test_mask_image()
print("files: %d outputs equal GIMP's result, %d samples compared"
      % (totals["files"], totals["samples"]))
summary("tool files in GIMP")
