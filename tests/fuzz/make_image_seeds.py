#!/usr/bin/env python3
"""Writes the image fuzzer's seed corpus (corpus/image/): tiny valid files in each format stb_image reads and
the variants its decoders branch on, plus cut-short and corrupt copies. JPEG seeds come from stb_image_write
(see README.md). Run from this folder: python3 make_image_seeds.py"""
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "image")
W, H = 7, 5  # not a multiple of anything


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def pixel(x, y, c):
    return (x * 37 + y * 91 + c * 53) % 256


# ---- PNG ----
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(color_type, depth, channels, interlace=False, palette=None, trns=None, filt=0):
    ihdr = struct.pack(">IIBBBBB", W, H, depth, color_type, 0, 0, 1 if interlace else 0)
    sample_bytes = max(1, depth // 8)

    def row(y, xs):
        out = bytearray([filt])
        if depth < 8:
            bits = 0
            n = 0
            for x in xs:
                bits = (bits << depth) | (pixel(x, y, 0) % (1 << depth))
                n += depth
                if n == 8:
                    out.append(bits)
                    bits = n = 0
            if n:
                out.append(bits << (8 - n))
            return bytes(out)
        for x in xs:
            for c in range(channels):
                v = pixel(x, y, c)
                out += bytes([v] * sample_bytes)
        return bytes(out)

    bpp = max(1, channels * depth // 8)  # bytes per pixel, for the filters

    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else b if pb <= pc else c

    def filtered(rows):  # applies each row's filter (the first byte) against the row before it
        out, prior = bytearray(), None
        for r in rows:
            kind, line = r[0], r[1:]
            up = prior if prior is not None else bytes(len(line))
            enc = bytearray([kind])
            for i, v in enumerate(line):
                a = line[i - bpp] if i >= bpp else 0
                b, c = up[i], up[i - bpp] if i >= bpp else 0
                pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
                enc.append((v - pred) % 256)
            out += enc
            prior = line
        return out

    raw = bytearray()
    if interlace:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            xs = list(range(x0, W, dx))
            if not xs:
                continue
            raw += filtered([row(y, xs) for y in range(y0, H, dy)])
    else:
        raw += filtered([row(y, range(W)) for y in range(H)])
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    if palette is not None:
        data += chunk(b"PLTE", palette)
    if trns is not None:
        data += chunk(b"tRNS", trns)
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    return data


palette = bytes(pixel(i, i, c) for i in range(16) for c in range(3))
seeds = {
    "png_gray8.png": png(0, 8, 1),
    "png_gray1.png": png(0, 1, 1),
    "png_gray16.png": png(0, 16, 1),
    "png_rgb8.png": png(2, 8, 3),
    "png_rgb16_sub_filter.png": png(2, 16, 3, filt=1),
    "png_rgba8_paeth_filter.png": png(6, 8, 4, filt=4),
    "png_gray_alpha8_avg_filter.png": png(4, 8, 2, filt=3),
    "png_palette4_trns.png": png(3, 4, 1, palette=palette, trns=bytes([0, 128, 255])),
    "png_rgb8_interlaced.png": png(2, 8, 3, interlace=True),
    "png_rgb_trns.png": png(2, 8, 3, trns=struct.pack(">HHH", 1, 2, 3)),
}
# Only a header: a size from the header alone (the huge-image refusal).
seeds["png_header_only_huge.png"] = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 20000, 8, 6, 0, 0, 0))


# ---- GIF (LZW written out) ----
def lzw(pixels, min_size):
    clear = 1 << min_size
    size, table, nxt, codes, w = min_size + 1, {(i,): i for i in range(clear)}, clear + 2, [], ()
    codes.append((clear, size))
    for p in pixels:
        if w + (p,) in table:
            w = w + (p,)
            continue
        codes.append((table[w], size))
        if nxt < 4096:
            table[w + (p,)] = nxt
            nxt += 1
            if nxt > (1 << size) and size < 12:
                size += 1
        w = (p,)
    codes.append((table[w], size))
    codes.append((clear + 1, size))
    bits = n = 0
    out = bytearray()
    for c, s in codes:
        bits |= c << n
        n += s
        while n >= 8:
            out.append(bits & 255)
            bits >>= 8
            n -= 8
    if n:
        out.append(bits & 255)
    return bytes(out)


def gif(transparent=False, interlaced=False):
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", W, H, 0x81, 0, 0) + palette[:12])
    if transparent:
        out += b"\x21\xf9\x04\x01\x00\x00\x02\x00"
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, W, H, 0x40 if interlaced else 0) + b"\x02"
    data = lzw([pixel(x, y, 0) % 4 for y in range(H) for x in range(W)], 2)
    for i in range(0, len(data), 255):
        out += bytes([len(data[i:i + 255])]) + data[i:i + 255]
    return bytes(out + b"\x00\x3b")


seeds["gif_plain.gif"] = gif()
seeds["gif_transparent_interlaced.gif"] = gif(True, True)

# ---- BMP (24-bit bottom-up, 8-bit palette top-down) ----
def bmp(bpp):
    row = (W * bpp + 31) // 32 * 4
    pal = b"".join(bytes([pixel(i, 0, 0), pixel(i, 1, 1), pixel(i, 2, 2), 0]) for i in range(256)) if bpp == 8 else b""
    offset = 14 + 40 + len(pal)
    pixels = bytearray()
    for y in (range(H) if bpp == 8 else reversed(range(H))):  # bottom-up rows unless the height is negative
        line = bytearray(pixel(x, y, c) for x in range(W) for c in range(bpp // 8))
        pixels += line + bytes(row - len(line))
    height = -H if bpp == 8 else H
    info = struct.pack("<IiiHHIIiiII", 40, W, height, 1, bpp, 0, len(pixels), 2835, 2835, 256 if bpp == 8 else 0, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + pal + pixels


seeds["bmp_rgb24.bmp"] = bmp(24)
seeds["bmp_palette8_top_down.bmp"] = bmp(8)

# ---- TGA (raw RGB, run-length gray) ----
def tga(kind, bpp):
    hdr = struct.pack("<BBBHHBHHHHBB", 0, 0, kind, 0, 0, 0, 0, 0, W, H, bpp, 0)
    if kind == 2:
        return hdr + bytes(pixel(x, y, c) for y in reversed(range(H)) for x in range(W) for c in range(bpp // 8))
    out = bytearray(hdr)
    for y in reversed(range(H)):  # bottom-up; one repeat packet and one literal packet per row
        out += bytes([0x80 | 2, pixel(0, y, 0)]) + bytes([W - 4]) + bytes(pixel(x, y, 0) for x in range(3, W))
    return bytes(out)


seeds["tga_rgb24_raw.tga"] = tga(2, 24)
seeds["tga_gray8_rle.tga"] = tga(11, 8)

# ---- PNM, PSD, HDR ----
seeds["pnm_gray.pgm"] = b"P5\n# a comment\n%d %d\n255\n" % (W, H) + bytes(pixel(x, y, 0) for y in range(H) for x in range(W))
seeds["pnm_rgb16_refused.ppm"] = b"P6 %d %d 65535\n" % (W, H) + bytes(v for y in range(H) for x in range(W) for c in range(3) for v in (pixel(x, y, c), 0x5A))
seeds["psd_rgb_raw.psd"] = (b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, H, W, 8, 3) + struct.pack(">III", 0, 0, 0) +
                            struct.pack(">H", 0) + bytes(pixel(x, y, c) for c in range(3) for y in range(H) for x in range(W)))
seeds["hdr_flat.hdr"] = (b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n" % (H, W) +
                         bytes(v for _ in range(W * H) for v in (128, 64, 32, 129)))

# ---- broken copies: cut short at a few places, and a flipped byte in the middle ----
for name, data in list(seeds.items()):
    if name.startswith("png_header_only"):
        continue
    seeds["cut_half_" + name] = data[: len(data) // 2]
seeds["cut_signature.png"] = seeds["png_rgb8.png"][:5]
seeds["corrupt_idat.png"] = seeds["png_rgb8.png"][:60] + b"\xff\xff" + seeds["png_rgb8.png"][62:]
seeds["unknown_text.png"] = b"not an image at all\n"

os.makedirs(OUT, exist_ok=True)
for name, data in sorted(seeds.items()):
    write(name, data)
print("wrote %d seeds to %s" % (len(seeds), OUT))
