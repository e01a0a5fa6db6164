# An independent reference for the GIMP tests: the definition of issue #2 in
# plain Python, sharing no code with the engine.  Images are lists of rows of
# pixels; a pixel is a list of channel values in the 0..1 scale.
#
# SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception


def border_index(i, n, border):
    """Maps coordinate i onto 0..n-1, or None for a zero ghost cell."""
    if 0 <= i < n:
        return i
    if border in ("zero", "black", "white"):
        return None
    if border == "extend":
        return 0 if i < 0 else n - 1
    if border == "wrap":
        return i % n
    # mirror: ... c b | a b c d | c b a ..., period 2(n-1)
    if n == 1:
        return 0
    p = 2 * (n - 1)
    i %= p
    return i if i < n else p - i


def normalize(matrix):
    s = sum(matrix)
    if s > 0:
        return s, None          # divisor, offset unchanged
    if s < 0:
        return -s, 1.0
    return 1.0, 0.5


def convolve(image, matrix, mw, mh, divisor=1.0, offset=0.0, border="extend",
             clamp=True, alpha=False, alpha_weighting=True, affect_alpha=True,
             rect=None):
    """Returns a new image: 'rect' (x, y, w, h) convolved, the rest as it was."""
    h = len(image)
    w = len(image[0])
    channels = len(image[0][0])
    rx, ry = (mw - 1) // 2, (mh - 1) // 2
    x0, y0, rw, rh = rect if rect else (0, 0, w, h)
    a = channels - 1 if alpha else None
    sum_abs = sum(abs(k) for k in matrix)

    # Ghost cells: zero; black or white are opaque (alpha 1).
    ghost = [1.0 if border == "white" else 0.0] * channels
    if alpha and border in ("black", "white"):
        ghost[-1] = 1.0

    def fetch(x, y):
        mx, my = border_index(x, w, border), border_index(y, h, border)
        if mx is None or my is None:
            return ghost
        return image[my][mx]

    out = [[list(p) for p in row] for row in image]
    for y in range(y0, y0 + rh):
        for x in range(x0, x0 + rw):
            window = [(matrix[j * mw + i], fetch(x + i - rx, y + j - ry))
                      for j in range(mh) for i in range(mw)]
            for c in range(channels):
                if c == a and not affect_alpha:
                    continue                      # copied
                plain = sum(k * p[c] for k, p in window)
                if alpha and c != a and alpha_weighting:
                    wabs = sum(abs(k * p[a]) for k, p in window)
                    if wabs != 0.0:
                        plain = sum(k * p[c] * p[a] for k, p in window) * sum_abs / wabs
                v = plain / divisor + offset
                if clamp:
                    v = min(max(v, 0.0), 1.0)
                out[y][x][c] = v
    return out
