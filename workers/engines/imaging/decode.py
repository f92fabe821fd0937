"""Decoding untrusted image bytes with limits, and encoding results.

Partners hand us URLs to anything. Decoding is where a hostile or broken file does harm (a
decompression bomb, an exotic codec with a history of bugs), so the format is decided by magic
bytes and only five are opened, the pixel count is checked from the header before any pixel is
decoded, and Pillow's own bomb warning is an error. Everything downstream works in sRGB, upright.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageCms, ImageOps

from workers.engines.base import EngineError, EngineOutput, SizedImage

# 40 MP is a 7300x5500 photo: above any catalogue shot, and about 160 MB as RGBA, which a worker
# with 2 GB can hold a few times over while an engine works on it.
DEFAULT_MAX_PIXELS = 40_000_000

_SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


@dataclass(frozen=True)
class DecodedImage(SizedImage):
    rgb: np.ndarray  # HxWx3 uint8, sRGB, upright
    alpha: np.ndarray | None  # HxW uint8, or None when the file had no transparency
    format: str  # one of FORMATS

    def __iter__(self):  # type: ignore[no-untyped-def]
        # ``rgb, alpha = decode_image(data)`` reads naturally where the format is not needed.
        return iter((self.rgb, self.alpha))


# What we open, by Pillow's format name: phones' HEIC/HEIF (through pillow-heif), TIFF (first
# page) and AVIF besides the web's formats.
FORMATS = ("JPEG", "PNG", "WEBP", "GIF", "BMP", "TIFF", "HEIF", "AVIF")
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}
_AVIF_BRANDS = {b"avif", b"avis"}


def _iso_brand(data: bytes) -> str | None:
    """HEIF or AVIF from an ISO base media file's ftyp box (major and compatible brands)."""
    if data[4:8] != b"ftyp":
        return None
    size = int.from_bytes(data[:4], "big")
    box = data[8:min(max(size, 16), 64)]
    brands = {box[i:i + 4] for i in range(0, len(box) - 3, 4)} - {b"\x00\x00\x00\x00"}
    if brands & _AVIF_BRANDS:
        return "AVIF"
    if brands & _HEIF_BRANDS:
        return "HEIF"
    return None


def sniff_format(data: bytes) -> str | None:
    """The image format from the first bytes, or None for anything we do not open."""
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    iso = _iso_brand(data)
    if iso:
        return iso
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:2] == b"BM":
        return "BMP"
    return None


def decode_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> DecodedImage:
    """Decode JPEG, PNG, WebP, GIF (first frame), BMP, TIFF (first page), HEIC/HEIF or AVIF
    into upright sRGB plus optional alpha."""
    fmt = sniff_format(data)
    if fmt is None:
        raise EngineError(
            "unsupported_image",
            "The file is not an image we can read: send a JPEG, PNG, WebP, GIF, BMP, TIFF, "
            "HEIC or AVIF.",
        )
    if fmt == "HEIF":
        _heif_registered()
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            im = Image.open(io.BytesIO(data), formats=[fmt])
            width, height = im.size
            if width <= 0 or height <= 0:
                raise EngineError("unsupported_image", "The image has no pixels.")
            if width * height > max_pixels:
                raise _too_large(width, height, max_pixels)
            im.seek(0)  # GIF, animated WebP, multi-page TIFF and HEIF: the first image only
            im.load()
            icc = im.info.get("icc_profile")
            im = ImageOps.exif_transpose(im)
        except EngineError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise EngineError(
                "image_too_large", "The image has too many pixels to process safely."
            ) from exc
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            # Pillow reports truncated and corrupt files as OSError/SyntaxError/ValueError.
            raise EngineError(
                "unsupported_image", f"The {fmt} file is damaged or cannot be decoded."
            ) from exc
    rgb_im, alpha = _split_alpha(im)
    rgb_im = _to_srgb(rgb_im, icc)
    rgb = np.asarray(rgb_im, dtype=np.uint8)
    return DecodedImage(rgb=np.ascontiguousarray(rgb), alpha=alpha, format=fmt)


@functools.cache
def _heif_registered() -> None:
    """Pillow opens HEIC/HEIF through pillow-heif's plugin, registered on first use."""
    from pillow_heif import register_heif_opener

    register_heif_opener()


def _too_large(width: int, height: int, max_pixels: int) -> EngineError:
    return EngineError(
        "image_too_large",
        f"The image is {width}x{height} ({width * height / 1e6:.1f} MP); the limit is "
        f"{max_pixels / 1e6:.0f} MP.",
    )


def _split_alpha(im: Image.Image) -> tuple[Image.Image, np.ndarray | None]:
    mode = im.mode
    if mode in ("I", "I;16", "I;16B", "I;16L", "F"):
        # 16-bit and float greyscale: scale to 8 bits instead of clipping.
        arr = np.asarray(im, dtype=np.float64)
        top = 65535.0 if arr.max() > 255 else 255.0
        im = Image.fromarray(np.clip(arr / top * 255.0 + 0.5, 0, 255).astype(np.uint8), "L")
        mode = "L"
    if mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
        mode = im.mode
    if mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        im = im.convert("RGBA")
        alpha = np.asarray(im.getchannel("A"), dtype=np.uint8).copy()
        rgb = im.convert("RGB")
        if int(alpha.min()) == 255:
            return rgb, None
        return rgb, alpha
    if mode in ("L", "RGB", "CMYK", "YCbCr", "LAB", "HSV"):
        return im, None
    return im.convert("RGB"), None


def _to_srgb(im: Image.Image, icc: bytes | None) -> Image.Image:
    if icc:
        try:
            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            return ImageCms.profileToProfile(
                im, src, _SRGB, renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB"
            )
        except (ImageCms.PyCMSError, OSError, ValueError):
            # A broken or mismatched profile: fall back to the plain conversion rather than
            # refusing a photo that otherwise decodes.
            pass
    return im if im.mode == "RGB" else im.convert("RGB")


def encode_png(rgb: np.ndarray, alpha: np.ndarray | None = None, *,
               run_length: bool = False) -> bytes:
    """``run_length``: zlib's run-length strategy instead of its match search. Faster, and
    smaller on composited images with smooth or flat areas (a flat lay's sweep); larger on some
    plain photos and on cut-outs, so callers choose it for their own outputs."""
    im = _to_image(rgb, alpha)
    buf = io.BytesIO()
    # compress_level 3: about three times faster than the default 6 for photos, a few per cent
    # larger; the outputs go to a drive, not over a slow link.
    im.save(buf, format="PNG", compress_level=3, compress_type=3 if run_length else -1)
    return buf.getvalue()


def encode_jpeg(rgb: np.ndarray, *, quality: int = 92) -> bytes:
    buf = io.BytesIO()
    _to_image(rgb, None).save(buf, format="JPEG", quality=quality, subsampling=0, optimize=True)
    return buf.getvalue()


def encode_webp(rgb: np.ndarray, alpha: np.ndarray | None = None, *, quality: int = 90) -> bytes:
    buf = io.BytesIO()
    _to_image(rgb, alpha).save(buf, format="WEBP", quality=quality, method=4)
    return buf.getvalue()


def _to_image(rgb: np.ndarray, alpha: np.ndarray | None) -> Image.Image:
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    if alpha is None:
        return Image.fromarray(rgb, "RGB")
    rgba = np.dstack([rgb, np.asarray(alpha, dtype=np.uint8)])
    return Image.fromarray(np.ascontiguousarray(rgba), "RGBA")


def png_engine_run(params: dict[str, Any], progress: Any,
                   transform: Callable[[np.ndarray], np.ndarray],
                   filename: str) -> list[EngineOutput]:
    """The common shape of a one-image engine: params["image"] bytes in, one PNG out (the
    source's alpha kept), `transform` doing the work on the RGB array."""
    data = params.get("image")
    if not isinstance(data, (bytes, bytearray)):
        raise EngineError("missing_image", "No image was given.")
    decoded = decode_image(bytes(data))
    progress(10)
    rgb = transform(decoded.rgb)
    progress(95)
    return [EngineOutput(data=encode_png(rgb, decoded.alpha), content_type="image/png",
                         filename=filename)]
