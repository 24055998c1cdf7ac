"""Draws the committed app icons (`static/icon-{192,512}.png`) with zlib alone: run once."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).parent / "static"
BLUE = (0x3D, 0x5B, 0xD9)  # the UI's accent colour
WHITE = (0xFF, 0xFF, 0xFF)
W = 0.06
"""Half the stroke width of the question mark, as a fraction of the icon."""


def _segment(px: float, py: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    bx, by = b
    t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay))
                     / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)))


def distance(px: float, py: float) -> float:
    """Signed distance from (px, py) to a "?" (negative inside), in icon units (0..1)."""
    cx, cy, r = 0.5, 0.37, 0.15
    end = (cx + r * math.cos(math.radians(60)), cy + r * math.sin(math.radians(60)))
    angle = math.degrees(math.atan2(py - cy, px - cx))  # y grows downwards: the top is -90
    ring = abs(math.hypot(px - cx, py - cy) - r) - W if angle <= 60 else math.inf
    cap = math.hypot(px - (cx - r), py - cy) - W
    bend = (0.5, 0.575)
    stem = min(_segment(px, py, end, bend), _segment(px, py, bend, (0.5, 0.62))) - W
    dot = math.hypot(px - 0.5, py - 0.76) - 1.1 * W
    return min(ring, cap, stem, dot)


def pixels(size: int) -> bytes:
    rows = bytearray()
    for y in range(size):
        rows.append(0)  # PNG filter type 0 for this row
        for x in range(size):
            d = distance((x + 0.5) / size, (y + 0.5) / size)
            ink = max(0.0, min(1.0, 0.5 - d * size))  # one pixel of anti-aliasing
            rows += bytes(round(b + (w - b) * ink) for b, w in zip(BLUE, WHITE, strict=True))
    return bytes(rows)


def png(size: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(pixels(size), 9)) + chunk(b"IEND", b""))


def main() -> None:
    """`python -m adapters.web.make_icons` rewrites both PNGs."""
    for size in (192, 512):
        (STATIC / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
