from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, ImageCms

from workers.engines.base import EngineError
from workers.engines.imaging.decode import decode_image, encode_jpeg, encode_png, encode_webp


def _save(im: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height, with a token IDAT (never decoded)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b"")


def _linear_srgb_profile() -> bytes:
    """sRGB primaries with a linear (gamma 1.0) tone curve: the 'para' TRC shared by R, G, B
    rewritten as function type 0 with gamma 1."""
    p = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    count = struct.unpack(">I", p[128:132])[0]
    for i in range(count):
        sig, off, _size = struct.unpack(">4sII", p[132 + 12 * i:144 + 12 * i])
        if sig == b"rTRC":
            p[off:off + 16] = b"para" + b"\0" * 4 + struct.pack(">HH", 0, 0) + struct.pack(">i", 1 << 16)
            break
    return bytes(p)


def test_a_decompression_bomb_is_refused_by_pillows_warning_made_an_error() -> None:
    # 12000 x 12000 = 144 MP: above Pillow's 89 MP warning, below its 178 MP hard error, so
    # only the warning-as-error stops it (our own cap is lifted for this test).
    with pytest.raises(EngineError) as err:
        decode_image(_png_header_only(12000, 12000), max_pixels=10**12)
    assert err.value.code == "image_too_large"


def test_the_pixel_cap_refuses_before_decoding() -> None:
    data = _save(Image.new("RGB", (1200, 1000), "red"), "PNG")
    with pytest.raises(EngineError) as err:
        decode_image(data, max_pixels=1_000_000)
    assert err.value.code == "image_too_large"
    assert decode_image(data, max_pixels=1_200_000).rgb.shape == (1000, 1200, 3)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n1 0 obj\n",
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom",  # a video, not a HEIF
        b"",
    ],
    ids=["pdf", "svg", "mp4", "empty"],
)
def test_unknown_formats_are_refused(data: bytes) -> None:
    with pytest.raises(EngineError) as err:
        decode_image(data)
    assert err.value.code == "unsupported_image"


def test_a_truncated_jpeg_is_refused_cleanly() -> None:
    data = _save(Image.new("RGB", (64, 64), "blue"), "JPEG")
    with pytest.raises(EngineError) as err:
        decode_image(data[:40])
    assert err.value.code == "unsupported_image"


def test_exif_orientation_is_applied() -> None:
    # Stored 40 wide x 20 high, left half red, right half blue; orientation 6 means "rotate
    # 90° clockwise to display", which puts the red half on top of a 20 x 40 image.
    arr = np.zeros((20, 40, 3), np.uint8)
    arr[:, :20] = (255, 0, 0)
    arr[:, 20:] = (0, 0, 255)
    exif = Image.Exif()
    exif[0x0112] = 6
    data = _save(Image.fromarray(arr), "JPEG", exif=exif, quality=95)

    rgb = decode_image(data).rgb

    assert rgb.shape == (40, 20, 3)
    assert rgb[5, 10, 0] > 200 and rgb[5, 10, 2] < 60  # top: red
    assert rgb[35, 10, 2] > 200 and rgb[35, 10, 0] < 60  # bottom: blue


def test_cmyk_jpeg_becomes_rgb() -> None:
    data = _save(Image.new("CMYK", (16, 16), (255, 0, 0, 0)), "JPEG", quality=95)
    decoded = decode_image(data)
    assert decoded.rgb.dtype == np.uint8 and decoded.rgb.shape == (16, 16, 3)
    r, g, b = decoded.rgb[8, 8].astype(int)
    assert r < 40 and g > 215 and b > 215  # pure cyan ink


def test_an_icc_profile_is_converted_to_srgb() -> None:
    # 128 in a linear-light profile is 50 % light: about 188 once encoded as sRGB.
    im = Image.new("RGB", (16, 16), (128, 128, 128))
    tagged = _save(im, "PNG", icc_profile=_linear_srgb_profile())
    untagged = _save(im, "PNG")

    assert abs(int(decode_image(tagged).rgb[8, 8, 0]) - 188) <= 3
    assert int(decode_image(untagged).rgb[8, 8, 0]) == 128


def test_alpha_is_kept_and_formats_round_trip() -> None:
    rgba = np.zeros((10, 12, 4), np.uint8)
    rgba[..., 1] = 200
    rgba[..., 3] = np.linspace(0, 255, 12, dtype=np.uint8)[None, :]
    for fmt in ("PNG", "WEBP"):
        decoded = decode_image(_save(Image.fromarray(rgba), fmt, lossless=True) if fmt == "WEBP"
                               else _save(Image.fromarray(rgba), fmt))
        assert decoded.format == fmt
        assert decoded.alpha is not None and decoded.alpha[0, 0] == 0 and decoded.alpha[0, -1] == 255
    opaque = decode_image(encode_png(rgba[..., :3]))
    assert opaque.alpha is None
    assert decode_image(encode_jpeg(rgba[..., :3])).format == "JPEG"
    assert decode_image(encode_webp(rgba[..., :3], rgba[..., 3])).alpha is not None


def test_gif_gives_its_first_frame_and_bmp_decodes() -> None:
    frames = [Image.new("P", (8, 8), i) for i in (1, 2)]
    for f in frames:
        f.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0] + [0] * 759)
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    assert tuple(decode_image(buf.getvalue()).rgb[0, 0]) == (255, 0, 0)
    bmp = decode_image(_save(Image.new("RGB", (5, 3), (1, 2, 3)), "BMP"))
    assert bmp.format == "BMP" and tuple(bmp.rgb[1, 1]) == (1, 2, 3)


def _heif_saving() -> None:
    from pillow_heif import register_heif_opener

    register_heif_opener()


@pytest.mark.parametrize("fmt", ["HEIF", "AVIF", "TIFF"])
def test_phone_and_print_formats_decode_upright(fmt: str) -> None:
    """HEIC/HEIF (phones), AVIF and TIFF open like a JPEG: upright (EXIF orientation applied
    once) and in sRGB."""
    _heif_saving()
    im = Image.new("RGB", (64, 48), (200, 30, 30))
    im.paste((10, 10, 200), (0, 0, 16, 48))  # a blue band on the left
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90° clockwise to display
    decoded = decode_image(_save(im, fmt, exif=exif.tobytes()))
    assert decoded.format == fmt
    assert decoded.rgb.shape == (64, 48, 3)
    assert decoded.rgb[2, 24].tolist() == pytest.approx([10, 10, 200], abs=4)  # band on top
    assert decoded.rgb[60, 24].tolist() == pytest.approx([200, 30, 30], abs=4)


def test_a_heic_photo_runs_through_recolor() -> None:
    """The same photo as HEIC and as JPEG gives the same recolour (up to the codecs)."""
    from tests.engines.conftest import noop_progress, photo
    from workers.engines.recolor import run

    _heif_saving()
    rgb = photo("garment/051988_1")
    params = {"target_color": "#4A5D23", "garment_type": "trousers"}
    outputs = [run({"image": data} | params, noop_progress)[0] for data in (
        _save(Image.fromarray(rgb), "HEIF", quality=95), encode_jpeg(rgb, quality=95))]
    heic, jpeg = (np.asarray(Image.open(io.BytesIO(o.data)).convert("RGB"), dtype=np.int16)
                  for o in outputs)
    assert heic.shape == jpeg.shape
    assert float(np.abs(heic - jpeg).mean()) < 4.0
