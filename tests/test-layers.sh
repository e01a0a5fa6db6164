#!/bin/sh
# No circle among the engine's files (scripts/check-layers.sh).
exec sh "${top_srcdir:-..}/scripts/check-layers.sh" "${top_builddir:-.}"
