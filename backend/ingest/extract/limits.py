"""Size limits applied while extracting, against decompression bombs.

A DOCX or ODT is a ZIP archive: 0.4 MB can expand to hundreds of MiB of XML, which the
parsers would hold in memory at once. `check_zip` runs before any parser sees the file:
1. only the compression methods these formats use (stored, deflate) are accepted (bzip2
   and lzma inflate a whole read at once, without an output bound);
2. the sizes the central directory declares are checked, per part and in total;
3. every part is then inflated in bounded steps while the bytes are counted, so a part
   whose header understates its size is caught by the count (and by its CRC) instead of
   being trusted. zipfile, which python-docx and odfpy read through, never returns more
   than the declared size of a part, so what the parsers can see is bounded by step 2.
`check_chars` bounds the text any format may yield (PDF, HTML and TXT too)."""
from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from backend.errors import ExtractionError, FileTooLarge
from backend.ingest.types import RawDocument

MIB = 1024 * 1024
MAX_MEMBERS = 10_000  # DOCX/ODT files have tens of parts, rarely a few hundred
_READ_STEP = 1 << 20
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


@dataclass(frozen=True)
class ExtractLimits:
    max_member_bytes: int = 64 * MIB
    max_total_bytes: int = 256 * MIB
    max_chars: int = 10_000_000

    @classmethod
    def from_settings(cls, settings) -> "ExtractLimits":
        return cls(max_member_bytes=int(settings.max_uncompressed_mb * MIB),
                   max_total_bytes=int(settings.max_uncompressed_total_mb * MIB),
                   max_chars=settings.max_extracted_chars)


def _mib(n: int) -> str:
    return f"{n / MIB:.0f} MiB" if n >= 10 * MIB else f"{n / MIB:.1f} MiB"


def _member_error(filename: str, member: str, size: int, limits: ExtractLimits,
                  so_far: bool = False) -> FileTooLarge:
    verb = "expands to more than" if so_far else "expands to"
    return FileTooLarge(filename, f"{member} {verb} {_mib(size)}, over the limit of "
                        f"{_mib(limits.max_member_bytes)} per part (RAGSCOPE_MAX_UNCOMPRESSED_MB)")


def _total_error(filename: str, total: int, limits: ExtractLimits,
                 so_far: bool = False) -> FileTooLarge:
    verb = "expand to more than" if so_far else "expand to"
    return FileTooLarge(filename, f"the parts of the archive {verb} {_mib(total)}, over the "
                        f"limit of {_mib(limits.max_total_bytes)} "
                        "(RAGSCOPE_MAX_UNCOMPRESSED_TOTAL_MB)")


def check_zip(data: bytes, filename: str, fmt: str, limits: ExtractLimits) -> None:
    """Raise FileTooLarge (a limit, named with its setting) or ExtractionError (a broken or
    unusual archive) before a ZIP-based file is parsed."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise ExtractionError(filename, f"not a valid {fmt.upper()} file (broken ZIP archive: "
                              f"{exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise FileTooLarge(filename, f"the archive has {len(infos)} parts, over the limit "
                               f"of {MAX_MEMBERS}")
        declared = 0
        for info in infos:
            if info.compress_type not in _METHODS:
                raise ExtractionError(filename, f"{info.filename} uses ZIP compression method "
                                      f"{info.compress_type}; {fmt.upper()} files use only "
                                      "stored or deflate")
            if info.flag_bits & 0x1:
                raise ExtractionError(filename, f"{info.filename} is encrypted")
            if info.file_size > limits.max_member_bytes:
                raise _member_error(filename, info.filename, info.file_size, limits)
            declared += info.file_size
            if declared > limits.max_total_bytes:
                raise _total_error(filename, declared, limits)
        _count_inflated(zf, infos, filename, fmt, limits)


def _count_inflated(zf: zipfile.ZipFile, infos, filename: str, fmt: str,
                    limits: ExtractLimits) -> None:
    """Inflate every part in bounded steps and count the bytes (the header is not trusted)."""
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        size = 0
        try:
            with zf.open(info) as fh:
                while block := fh.read(_READ_STEP):
                    size += len(block)
                    total += len(block)
                    if size > limits.max_member_bytes:
                        raise _member_error(filename, info.filename, size, limits, so_far=True)
                    if total > limits.max_total_bytes:
                        raise _total_error(filename, total, limits, so_far=True)
        except FileTooLarge:
            raise
        except Exception as exc:  # BadZipFile (bad CRC), EOFError, zlib.error, ...
            raise ExtractionError(filename, f"not a valid {fmt.upper()} file ({info.filename}: "
                                  f"{type(exc).__name__}: {exc})"[:300]) from None
        if size != info.file_size:  # zipfile stops at the declared size; be explicit
            raise ExtractionError(filename, f"not a valid {fmt.upper()} file ({info.filename} "
                                  f"inflates to {size} bytes, its header says {info.file_size})")


def check_chars(raw: RawDocument, filename: str, limits: ExtractLimits) -> None:
    chars = sum(len(b.text) for b in raw.blocks)
    if chars > limits.max_chars:
        raise chars_error(filename, chars, limits.max_chars)


def chars_error(filename: str, chars: int, max_chars: int, so_far: bool = False) -> FileTooLarge:
    more = "more than " if so_far else ""
    return FileTooLarge(filename, f"the text has {more}{chars:,} characters, over the limit of "
                        f"{max_chars:,} (RAGSCOPE_MAX_EXTRACTED_CHARS)")
