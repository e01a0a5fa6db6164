# Run by scripts/demo.sh inside GIMP 3's console: load INPUT, apply PRESET
# through plug-in-cuda-convolve, save OUTPUT, print what ran.
import os

from gi.repository import Gimp, Gio

image = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path(os.environ["INPUT"]))
drawable = image.get_layers()[0]
proc = Gimp.get_pdb().lookup_procedure("plug-in-cuda-convolve")
config = proc.create_config()
config.set_property("image", image)
config.set_core_object_array("drawables", [drawable])
config.set_property("preset", os.environ["PRESET"])
result = proc.run(config)
if result.index(0) != Gimp.PDBStatusType.SUCCESS:
    raise Exception("plug-in-cuda-convolve failed: %s" % result.index(1))
Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, image, Gio.File.new_for_path(os.environ["OUTPUT"]),
               None)
print("preset %s on %s (%dx%d): method %s, device %s, %.1f ms to apply it (the merge into "
      "the layer included; loading, saving and GIMP's start not)"
      % (os.environ["PRESET"], os.path.basename(os.environ["INPUT"]),
         drawable.get_width(), drawable.get_height(), result.index(1), result.index(2),
         result.index(3)))
image.delete()
print("wrote %s" % os.environ["OUTPUT"])
