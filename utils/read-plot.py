#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read line plots whose figures are published only as images (doc/nccl-validation.rst).

Reads a PNG line chart with a linear y axis from 0: the axis is the lowest dark horizontal line,
the top value belongs to the highest grey gridline, the x ticks are the dark marks just below
the axis. For every tick it prints the y value of the blue line and of the red line (the
centre of their pixels in that column and its two neighbours), or "-" where a line has no
pixel. A pixel is top / (axis - gridline) of the unit; values within a few pixels of the axis
cannot be told from zero.

usage: read-plot.py PNG TOP [FIRST]   (FIRST: the first tick's label, doubled at each tick;
                                       the tick's index when not given)
       read-plot.py --self-test       (draws a chart of known values and reads it back)
Only 8-bit, non-interlaced PNGs (greyscale, RGB, RGBA or palette); standard library only.
"""
import os
import struct
import sys
import tempfile
import zlib


def load(path):
    """(width, height, pixel(x, y) -> (r, g, b)) of a PNG file."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, pal = 8, b"", b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"PLTE":
            pal = body
    if depth != 8 or interlace or ctype not in (0, 2, 3, 4, 6):
        raise ValueError(f"{path}: only 8-bit non-interlaced PNGs")
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw, stride, rows, prev, i = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line

    def pixel(x, y):
        o = x * bpp
        if ctype == 3:
            k = rows[y][o]
            return tuple(pal[3 * k:3 * k + 3])
        if ctype in (2, 6):
            return tuple(rows[y][o:o + 3])
        return (rows[y][o],) * 3

    return w, h, pixel


def blue(p):
    r, g, b = p
    return b > 180 and b - r > 90 and b - g > 50


def red(p):
    r, g, b = p
    return r > 170 and r - g > 70 and r - b > 80


def dark(p):
    return max(p) < 90


def grey(p):
    return p[0] == p[1] == p[2] and 195 <= p[0] <= 225


def read(path, top):
    """[(blue value or None, red value or None) per tick], units per pixel."""
    w, h, px = load(path)
    xs = range(int(w * 0.15), int(w * 0.95), 3)

    def share(y, test):
        return sum(1 for x in xs if test(px(x, y))) / len(xs)

    gridlines = [y for y in range(h) if share(y, grey) > 0.5]
    axis = max((share(y, dark), y) for y in range(h // 2, h))[1]
    while share(axis - 1, dark) > 0.5:
        axis -= 1
    below = axis + 6
    while share(below, dark) > 0.5:
        below += 1
    runs = []
    for x in range(w):
        if dark(px(x, below + 2)):
            if runs and x - runs[-1][-1] <= 2:
                runs[-1].append(x)
            else:
                runs.append([x])
    ytop = min(gridlines)
    scale = top / (axis - ytop)
    out = []
    for run in runs:
        x = round(sum(run) / len(run))
        values = []
        for test in (blue, red):
            ys = [y for dx in (-1, 0, 1) for y in range(ytop - 20, axis + 3) if test(px(x + dx, y))]
            values.append((axis - sum(ys) / len(ys)) * scale if ys else None)
        out.append(tuple(values))
    return out, scale


def write_png(path, w, h, pixel):
    rows = b"".join(b"\0" + bytes(c for x in range(w) for c in pixel(x, y)) for y in range(h))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def self_test():
    """A 400 x 240 chart, gridline of 1000 at y = 30, axis at y = 200, 10 ticks from x = 50:
    a blue and a red line through known values must read back within a pixel."""
    w, h, top, y0, yt = 400, 240, 1000.0, 200, 30
    ticks = [50 + 30 * k for k in range(10)]
    values = {"blue": [100 + 90 * k for k in range(10)], "red": [150 + 90 * k for k in range(10)]}
    values["blue"][-1] = values["red"][-1] = None  # no line to the last tick: "-"
    per = top / (y0 - yt)

    def line_y(name, x):
        pts = [(t, y0 - v / per) for t, v in zip(ticks, values[name]) if v is not None]
        for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
            if xa <= x <= xb:
                return ya + (yb - ya) * (x - xa) / (xb - xa)
        return None

    def pixel(x, y):
        for name, colour in (("red", (216, 81, 64)), ("blue", (83, 131, 236))):
            ly = line_y(name, x)
            if ly is not None and abs(y - ly) <= 1.5:
                return colour
        if y in (y0, y0 + 1) and 20 <= x < w - 10:
            return (0, 0, 0)
        if y0 + 2 <= y <= y0 + 12 and any(abs(x - t) <= 1 for t in ticks):
            return (0, 0, 0)
        if y in (yt, yt + 1, 115) and 20 <= x < w - 10:
            return (204, 204, 204)
        return (255, 255, 255)

    fd, path = tempfile.mkstemp(suffix=".png")
    os.close(fd)
    try:
        write_png(path, w, h, pixel)
        got, scale = read(path, top)
    finally:
        os.remove(path)
    bad = []
    if len(got) != len(ticks):
        bad.append(f"{len(got)} ticks read, {len(ticks)} drawn")
    for k, (b, r) in enumerate(got[:len(ticks)]):
        for name, v in (("blue", b), ("red", r)):
            want = values[name][k]
            if (want is None) != (v is None) or (want is not None and abs(v - want) > scale):
                bad.append(f"tick {k} {name}: read {v}, drawn {want}")
    for b in bad:
        print("FAIL " + b, file=sys.stderr)
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) not in (3, 4):
        print("usage: read-plot.py PNG TOP [FIRST] | --self-test", file=sys.stderr)
        return 2
    try:
        got, scale = read(sys.argv[1], float(sys.argv[2]))
    except (OSError, ValueError) as e:
        print(f"read-plot.py: {e}", file=sys.stderr)
        return 1
    first = int(sys.argv[3]) if len(sys.argv) == 4 else None
    print(f"# {scale:.2f} units per pixel; tick, blue, red")
    for k, (b, r) in enumerate(got):
        label = first << k if first is not None else k
        print(label, *("-" if v is None else f"{v:.1f}" for v in (b, r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
