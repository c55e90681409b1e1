"""OCR fallback on the generated scans in data/ocr/ (data/make_ocr_fixtures.py): scanned and
mixed PDFs, PNG/JPEG/TIFF images, per-page confidence, and bad input. Needs the tesseract
command with German and English data (.ci/run installs it); without it the tests are
skipped locally and fail in CI."""
from __future__ import annotations

import io
import os
import struct
import zlib

import pytest

from backend.security.access import Scope
from backend.errors import ExtractionError, FileTooLarge
from backend.ingest import ocr
from backend.ingest.extract import extract
from backend.ingest.ocr import OcrOptions, character_error_rate
from backend.ingest.service import Ingestor
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo
from tests.conftest import ROOT

OCR = ROOT / "data" / "ocr"
_info = ocr.tesseract_info()
if _info is None or not {"deu", "eng"} <= _info[1]:
    if os.environ.get("CI"):
        raise RuntimeError("CI needs tesseract-ocr, tesseract-ocr-deu, tesseract-ocr-eng")
    pytest.skip("tesseract with deu+eng is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def ocr_rs(tmp_path_factory, shared_embedder):
    """The OCR fixtures ingested once (collection `ocr`)."""
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("ocr") / "var"))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_paths(
        [OCR / n for n in ("scan_merkblatt.pdf", "mixed_annual_report.pdf", "scan_annual_p2.png",
                           "scan_annual_p2.jpg", "scan_merkblatt.tiff")], collection="ocr")
    assert all(o.ok for o in outs), [o.error for o in outs]
    yield rs, {o.filename: o for o in outs}
    rs.close()


def _version(rs, version_id):
    with rs.store.session() as s:
        v = repo.get_version(s, version_id)
        return {"meta": dict(v.meta or {}), "pages": v.page_count, "text": v.text}


def test_scan_character_error_rate_at_most_5_percent(ocr_rs):
    rs, outs = ocr_rs
    v = _version(rs, outs["scan_merkblatt.pdf"].version_id)  # the text as stored and indexed
    cer = character_error_rate(v["text"], (OCR / "scan_merkblatt.truth.txt").read_text())
    assert cer <= 0.05, f"CER {cer:.2%}"
    assert v["pages"] == 2 and [n for n, _, _ in v["meta"]["pages"]] == [1, 2]


def test_cer_counts_errors():
    assert character_error_rate("Wärmemengenzähler", "Wärmemengenzähler") == 0
    assert character_error_rate("Warmemengenzahler", "Wärmemengenzähler") == pytest.approx(2 / 17)
    assert character_error_rate("Über-\ngabe station", "Übergabe station") == 0


def test_ocr_text_is_found_with_its_page(ocr_rs):
    rs, outs = ocr_rs
    res = Retriever(rs).retrieve("Baukostenzuschuss 4.900 EUR für Einfamilienhäuser",
                                 RetrievalParams(k=5, collections=["ocr"]),
                                 scope=Scope.everything())
    top = res.hits[0]
    assert top.document_id in (outs["scan_merkblatt.pdf"].document_id,
                                outs["scan_merkblatt.tiff"].document_id)
    assert "4.900 EUR" in top.text and top.page == 2


def test_per_page_confidence_is_stored(ocr_rs):
    rs, outs = ocr_rs
    v = _version(rs, outs["scan_merkblatt.pdf"].version_id)
    info = v["meta"]["ocr"]
    assert info["engine"].startswith("tesseract") and info["languages"] == "deu+eng"
    assert set(info["pages"]) == {"1", "2"}
    assert all(80 <= c <= 100 for c in info["pages"].values())
    assert info["low_confidence_pages"] == []


def test_mixed_pdf_ocrs_only_the_scanned_page(ocr_rs):
    rs, outs = ocr_rs
    v = _version(rs, outs["mixed_annual_report.pdf"].version_id)
    assert v["pages"] == 3 and list(v["meta"]["ocr"]["pages"]) == ["2"]
    truth = (OCR / "mixed_annual_report.truth.txt").read_text()
    start, end = next((a, b) for n, a, b in v["meta"]["pages"] if n == 2)
    assert character_error_rate(v["text"][start:end], truth) <= 0.05
    res = Retriever(rs).retrieve("Lumen Data Gateway central middleware smart meter gateways",
                                 RetrievalParams(k=5, collections=["ocr"]),
                                 scope=Scope.everything())
    mixed = [h for h in res.hits if h.document_id == outs["mixed_annual_report.pdf"].document_id]
    assert mixed and mixed[0].page == 2


def test_images_png_jpeg_and_multipage_tiff(ocr_rs):
    rs, outs = ocr_rs
    tiff = _version(rs, outs["scan_merkblatt.tiff"].version_id)
    assert tiff["pages"] == 2 and set(tiff["meta"]["ocr"]["pages"]) == {"1", "2"}
    truth = (OCR / "mixed_annual_report.truth.txt").read_text()
    for name in ("scan_annual_p2.png", "scan_annual_p2.jpg"):
        v = _version(rs, outs[name].version_id)
        assert v["pages"] == 1
        assert character_error_rate(v["text"], truth) <= 0.05, name


def _poor_scan() -> bytes:
    """The top of the annual-report scan as a coarse scanner would give it (45 dpi of detail
    in a 150 dpi image): still readable for Tesseract, but with low confidence."""
    from PIL import Image

    img = Image.open(OCR / "scan_annual_p2.jpg").convert("L")
    top = img.crop((0, 0, img.width, int(img.height * 0.15)))
    coarse = top.resize((top.width * 3 // 10, top.height * 3 // 10), Image.Resampling.BOX)
    buf = io.BytesIO()
    coarse.resize(top.size, Image.Resampling.NEAREST).save(buf, "PNG", dpi=(150, 150))
    return buf.getvalue()


def test_low_confidence_is_a_recorded_warning_and_a_trait(ingestor):
    from backend.store.models import DocumentVersion

    out = ingestor.ingest_bytes(_poor_scan(), "coarse_scan.png", collection="c")
    assert out.ok and "District heating" in _version(ingestor.rs, out.version_id)["text"]
    assert any(w.startswith("page 1: OCR confidence") and "below 70 %" in w
               and "RAGSCOPE_OCR_MIN_CONFIDENCE" in w for w in out.warnings)
    with ingestor.store.session() as s:
        v = s.get(DocumentVersion, out.version_id)
        assert v.meta["ocr"]["low_confidence_pages"] == [1]
        assert v.meta["ocr"]["pages"]["1"] < 70
        assert {"is_ocr", "ocr_low_confidence"} <= set(v.classification["traits"])


# ---- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, reason", [
    ("truncated.png", "truncated.png: not a readable PNG image"),
    ("not_an_image.jpg", "not_an_image.jpg: not a valid JPEG image"),
    ("encrypted_scan.pdf", "encrypted_scan.pdf: PDF is encrypted"),
])
def test_bad_images_fail_with_file_and_reason(name, reason):
    with pytest.raises(ExtractionError, match=reason):
        extract((OCR / "bad" / name).read_bytes(), name, ocr=OcrOptions())


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")  # Pillow's note on the garbled file
def test_corrupt_tiff_fails_with_file_and_reason():
    tiff = (OCR / "scan_merkblatt.tiff").read_bytes()
    broken = tiff[:8] + b"\xff" * 64 + tiff[72:4000]  # header kept, directory garbled, cut
    with pytest.raises(ExtractionError, match="broken.tiff: not a readable TIFF image .Pillow cannot identify"):
        extract(broken, "broken.tiff", ocr=OcrOptions())


def test_bad_files_never_abort_the_batch(ingestor, tmp_path):
    ok = tmp_path / "notiz.md"
    ok.write_text("# Notiz\n\nDie Scans werden nächste Woche erneut eingelesen.\n")
    outs = ingestor.ingest_paths([OCR / "bad", ok], collection="c")
    by = {o.filename: o for o in outs}
    assert by["notiz.md"].status == "new"
    assert {n: by[n].status for n in ("truncated.png", "not_an_image.jpg", "encrypted_scan.pdf")} \
        == dict.fromkeys(("truncated.png", "not_an_image.jpg", "encrypted_scan.pdf"), "failed")
    assert "PDF is encrypted" in by["encrypted_scan.pdf"].error


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares a huge canvas in a few bytes (a decompression bomb's header)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("side", [11_500, 40_000])  # our limit (132 MP), Pillow's own (1.6 GP)
@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # Pillow's, at open
def test_huge_image_canvas_is_refused_before_decoding(side):
    with pytest.raises(FileTooLarge, match="bomb.png: .*(megapixels|too large to decode)"):
        extract(_png_header_only(side, side), "bomb.png", ocr=OcrOptions())


def test_ocr_switched_off_or_missing_says_what_to_do(monkeypatch):
    scan = (OCR / "scan_merkblatt.pdf").read_bytes()
    with pytest.raises(ExtractionError, match="OCR is switched off .*RAGSCOPE_OCR_ENABLED"):
        extract(scan, "s.pdf", ocr=OcrOptions(enabled=False))
    with pytest.raises(ExtractionError, match="language data fra .*tesseract-ocr-fra"):
        extract(scan, "s.pdf", ocr=OcrOptions(languages="deu+fra"))
    monkeypatch.setattr(ocr, "tesseract_info", lambda: None)
    with pytest.raises(ExtractionError, match="s.png: .*apt-get install tesseract-ocr"):
        extract((OCR / "scan_annual_p2.png").read_bytes(), "s.png", ocr=OcrOptions())


def test_mixed_pdf_without_ocr_keeps_text_pages_and_warns():
    raw = extract((OCR / "mixed_annual_report.pdf").read_bytes(), "m.pdf",
                  ocr=OcrOptions(enabled=False))
    assert {b.page for b in raw.blocks} == {1, 3}
    assert any("page 2 has no text layer and was not OCR'd" in w
               for w in raw.metadata["warnings"])


def test_scans_are_typed_scanned_with_ocr_traits_and_profile(ocr_rs):
    from backend.store.models import DocumentVersion

    rs, outs = ocr_rs
    with rs.store.session() as s:
        scan = s.get(DocumentVersion, outs["scan_merkblatt.pdf"].version_id)
        mixed = s.get(DocumentVersion, outs["mixed_annual_report.pdf"].version_id)
        assert scan.primary_type == "pdf_scanned" and scan.processing_profile == "ocr_resilient"
        assert "is_ocr" in scan.classification["traits"]
        assert scan.classification["secondary_types"][:1] == ["information_sheet"]
        assert mixed.primary_type == "financial_report"  # one page of three scanned
        assert "is_ocr" in mixed.classification["traits"]


def test_a_scans_first_line_is_its_title_not_its_first_numbered_chapter(ingestor, tmp_path):
    """An OCR'd report got the title "1 Prüfung der Pumpen" (its first chapter) although its
    first line is its title."""
    import importlib.util

    from tests.fixtures.documents import make_pdf

    spec = importlib.util.spec_from_file_location("make_ocr", ROOT / "data" / "make_ocr_fixtures.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    original = tmp_path / "bericht.pdf"
    original.write_bytes(make_pdf([[
        "Prüfbericht Pumpwerk Nord 2024", "1 Prüfung der Pumpen",
        "Die Pumpen P1 bis P4 wurden am 12. März 2024 geprüft. Alle Lager waren in Ordnung.",
        "2 Ergebnis", "Die Anlage ist betriebsbereit. Die nächste Prüfung folgt im März 2025."]]))
    scan = tmp_path / "scan_pruefbericht.pdf"
    scan.write_bytes(make.image_pdf([make.render(original, 0, seed=7)]))
    [out] = ingestor.ingest_paths([scan])
    assert out.status == "new", out.error
    with ingestor.store.session() as s:
        doc = repo.get_document(s, out.document_id)
        assert "Prüfung der Pumpen" in doc.versions[0].text  # read by OCR
        assert doc.title == "Prüfbericht Pumpwerk Nord 2024"
