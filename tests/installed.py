# An installed plug-in as GIMP runs it (tests/flatpak-emulated.sh,
# tests/gex.sh, in GIMP's python-fu-eval): the GEGL module mapped, the
# three procedures registered (plug-in-cuda-estimate-blur with its
# arguments and return values), cuda:convolve known, plug-in-cuda-convolve
# run on a layer (what ran, and whether the layer changed), and the
# operation on it where GEGL has it.  CC_EXPECT_GPU: the procedure asks
# for a GPU method.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

import os
from gi.repository import Gegl, Gimp
print("mapped:", *sorted({l.split()[-1] for l in open("/proc/%d/maps" % os.getppid())
                          if l.rstrip().endswith("/cuda-convolve-gpl3.so")}))
pdb = Gimp.get_pdb()
def registered(name, arguments=(), returns=()):
    """Whether GIMP has the procedure, with these arguments and return values."""
    proc = pdb.lookup_procedure(name) if pdb.procedure_exists(name) else None
    return (proc is not None and set(arguments) <= {a.name for a in proc.get_arguments()} and
            set(returns) <= {r.name for r in proc.get_return_values()})
print("procedures:", registered("plug-in-cuda-convolve"), registered("plug-in-cuda-deconvolve"),
      registered("plug-in-cuda-estimate-blur", ("drawables", "shape", "restore"),
                 ("shape", "radius", "angle", "confidence")))
Gegl.init(None)
print("operation:", Gegl.has_operation("cuda:convolve"))
image = Gimp.Image.new(32, 24, Gimp.ImageBaseType.RGB)
layer = Gimp.Layer.new(image, "l", 32, 24, Gimp.ImageType.RGB_IMAGE, 100, Gimp.LayerMode.NORMAL)
image.insert_layer(layer, None, 0)
buf = layer.get_buffer()
buf.set(Gegl.Rectangle.new(0, 0, 32, 24), "R'G'B' u8",
        bytes((x * 8 if (x // 4 + y // 4) % 2 else 255) for y in range(24) for x in range(32)
              for c in range(3)))
buf.flush()
def pixels():
    return bytes(layer.get_buffer().get(Gegl.Rectangle.new(0, 0, 32, 24), 1.0, "R'G'B' u8",
                                        Gegl.AbyssPolicy.NONE))
before = pixels()
proc = pdb.lookup_procedure("plug-in-cuda-convolve")
cfg = proc.create_config()
cfg.set_property("image", image)
cfg.set_core_object_array("drawables", [layer])
cfg.set_property("preset", "box-5")
# On a GPU machine, a GPU method by name, which only the GPU can run: auto
# takes the CPU for an image this small.
if os.environ.get("CC_EXPECT_GPU"):
    cfg.set_property("method", "fft")
result = proc.run(cfg)
after = pixels()
print("procedure:", result.index(0) == Gimp.PDBStatusType.SUCCESS and after != before)
print("ran:", result.index(1), "on", result.index(2))
if Gegl.has_operation("cuda:convolve"):
    f = Gimp.DrawableFilter.new(layer, "cuda:convolve", "cuda")
    f.get_config().set_property("shape", "disc")
    f.update()
    layer.merge_filter(f)
    print("op:", pixels() != after)
