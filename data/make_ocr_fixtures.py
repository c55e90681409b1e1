#!/usr/bin/env python3
"""Generate the OCR fixtures in data/ocr/ from the sample corpus, deterministically.

    python data/make_ocr_fixtures.py

Every "scan" is a page of a sample PDF rendered to a greyscale image (pypdfium2), made to
look scanned (a slight rotation, blur, paper grain from a seeded generator, JPEG
compression) and put into a new file without any text layer:

- scan_merkblatt.pdf: both pages of merkblatt_fernwaerme.pdf (German), image-only, as
  greyscale JPEG at 200 dpi;
  scan_merkblatt.truth.txt is the text layer of the original pages (pypdf), the reference
  for the character error rate (tests/test_ocr.py, bench/bench_ocr.py);
- mixed_annual_report.pdf: annual_report_2023.pdf (English) with page 2 replaced by its scan
  (1 bit, 200 dpi; pages 1 and 3 keep their text layer); mixed_annual_report.truth.txt is page 2's text;
- scan_annual_p2.png (1 bit, 200 dpi) / .jpg (greyscale, 150 dpi) and scan_merkblatt.tiff (two 1-bit frames,
  CCITT group 4): the same scans as images;
- bad/: a truncated PNG, a JPEG that is plain text, and the annual report page-2 scan as a PDF encrypted with
  the user password "secret".

Byte-identical on reruns with the same library versions (pypdfium2, Pillow, numpy, fpdf2,
pypdf): no clock and no unseeded randomness is used; PDF dates and /ID are fixed.
"""
from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples"
OUT = HERE / "ocr"
DPI = 200  # a typical office-scanner resolution
FIXED = datetime(2024, 6, 1, 9, 0, 0, tzinfo=timezone.utc)


def render(pdf_path: Path, index: int, seed: int):
    """Page `index` of a PDF as a scanned-looking greyscale PIL image."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image, ImageFilter

    doc = pdfium.PdfDocument(str(pdf_path))
    try:
        img = doc[index].render(scale=DPI / 72, grayscale=True).to_pil().convert("L")
    finally:
        doc.close()
    img = img.rotate(0.35, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    rng = np.random.default_rng(seed)
    arr = np.asarray(img, dtype=np.float32)
    arr = arr * 0.92 + 14 + rng.normal(0, 1.0, arr.shape)  # greyish paper with grain
    return Image.fromarray(np.clip(arr, 0, 255).astype("uint8"), mode="L")


def bilevel(img):
    """Black and white at a fixed threshold, as a document scanner's 1-bit mode."""
    return img.point(lambda p: 255 if p > 160 else 0).convert("1", dither=0)


def jpeg(img, quality: int = 60) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality, optimize=False, progressive=False)
    return buf.getvalue()


def png(img) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=False)
    return buf.getvalue()


def image_pdf(images: list, black_white: bool = False) -> bytes:
    """An image-only PDF (one A4 page per image, no text layer) with fixed dates; the
    images as greyscale JPEG, or as 1-bit images with `black_white`."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(FIXED)
    pdf.set_producer("ragscope make_ocr_fixtures.py")
    for img in images:
        pdf.add_page()
        data = png(bilevel(img)) if black_white else jpeg(img)
        pdf.image(io.BytesIO(data), x=0, y=0, w=pdf.w, h=pdf.h)
    return bytes(pdf.output())


def page_texts(pdf_path: Path) -> list[str]:
    from pypdf import PdfReader

    return [p.extract_text() or "" for p in PdfReader(str(pdf_path)).pages]


def write_pdf(writer) -> bytes:
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def mixed(src: Path, scanned_index: int, seed: int) -> bytes:
    """The PDF with one page replaced by its scan (the other pages keep their text)."""
    from pypdf import PdfReader, PdfWriter

    scan = PdfReader(io.BytesIO(image_pdf([render(src, scanned_index, seed)], black_white=True)))
    w = PdfWriter()
    for i, page in enumerate(PdfReader(str(src)).pages):
        w.add_page(scan.pages[0] if i == scanned_index else page)
    w.add_metadata({"/Title": "Annual Report 2023 (page 2 scanned)",
                    "/Producer": "ragscope make_ocr_fixtures.py (pypdf)"})
    w._ID = None
    return write_pdf(w)


def encrypted(data: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter()
    for page in PdfReader(io.BytesIO(data)).pages:
        w.add_page(page)
    w.encrypt("secret")  # the file identifier is derived from the content: deterministic
    return write_pdf(w)


def generate() -> dict[str, bytes]:
    from PIL import Image

    merkblatt = SAMPLES / "merkblatt_fernwaerme.pdf"
    annual = SAMPLES / "annual_report_2023.pdf"
    scans = [render(merkblatt, 0, 1401), render(merkblatt, 1, 1402)]
    annual_p2 = render(annual, 1, 1403)
    out: dict[str, bytes] = {}
    out["scan_merkblatt.pdf"] = image_pdf(scans)
    out["scan_merkblatt.truth.txt"] = "\n\f\n".join(page_texts(merkblatt)).encode()
    out["mixed_annual_report.pdf"] = mixed(annual, 1, 1403)
    out["mixed_annual_report.truth.txt"] = page_texts(annual)[1].encode()
    out["scan_annual_p2.png"] = png(bilevel(annual_p2))
    small = annual_p2.resize((annual_p2.width * 3 // 4, annual_p2.height * 3 // 4),
                             resample=Image.Resampling.LANCZOS)
    out["scan_annual_p2.jpg"] = jpeg(small)  # 150 dpi
    buf = io.BytesIO()  # a fax-like two-page TIFF (1 bit, CCITT group 4)
    first, second = bilevel(scans[0]), bilevel(scans[1])
    first.save(buf, "TIFF", save_all=True, append_images=[second], compression="group4",
               dpi=(DPI, DPI))
    out["scan_merkblatt.tiff"] = buf.getvalue()
    out["bad/truncated.png"] = out["scan_annual_p2.png"][:5000]
    out["bad/not_an_image.jpg"] = b"This is a text file with a .jpg name, not an image.\n"
    out["bad/encrypted_scan.pdf"] = encrypted(image_pdf([annual_p2], black_white=True))
    return out


def main() -> None:
    for name, data in generate().items():
        path = OUT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{path.relative_to(HERE)!s:45} {len(data):>9} bytes")


if __name__ == "__main__":
    main()
