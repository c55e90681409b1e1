#!/usr/bin/env python3
"""Generate the ragscope sample corpus deterministically, and check the sample goldenset.

    python data/make_samples.py            # (re)generate data/samples, data/samples_v2, data/bad
    python data/make_samples.py --check    # verify eval/goldenset_sample.yaml against the corpus

The document texts live in data/sample_texts/ (texts/ and catalogue.yaml). Output is
byte-identical across runs with the same library versions (fpdf2, python-docx, odfpy, pypdf) and
the same font files: PDF creation dates and /ID are fixed, DOCX/ODT core properties are fixed
and their ZIP members get a fixed timestamp. No randomness is used anywhere.

--check is data/check_samples.py (what it verifies is described there).
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import sample_texts as T  # noqa: E402
from sample_dsl import doc_src  # noqa: E402
from sample_formats import RENDER  # noqa: E402

SAMPLES = HERE / "samples"
SAMPLES_V2 = HERE / "samples_v2"
BAD = HERE / "bad"


def render(doc: dict, version: int = 1) -> bytes:
    src = doc_src(doc, version)
    if version == 2:
        doc = dict(doc, date=T.V2_DATE.get(doc["name"], doc.get("date")))
    if doc["fmt"] in ("md", "txt"):
        return src.encode("utf-8")
    return RENDER[doc["fmt"]](doc, src)


# ------------------------------------------------------------------------------------------
# Bad inputs
# ------------------------------------------------------------------------------------------
def make_bad() -> dict[str, bytes]:
    from pypdf import PdfReader, PdfWriter

    src_pdf = (SAMPLES / "merkblatt_fernwaerme.pdf").read_bytes()
    out = {}
    out["corrupt_truncated.pdf"] = src_pdf[: len(src_pdf) * 2 // 5]
    w = PdfWriter()
    for page in PdfReader(io.BytesIO((SAMPLES / "benutzungsordnung_kundenportal.pdf").read_bytes())).pages:
        w.add_page(page)
    w.add_metadata({"/Title": "Benutzungsordnung (verschlüsselt)", "/Producer": "ragscope make_samples.py (pypdf)"})
    w.encrypt("secret")  # RC4-128; the file identifier is derived from the content -> deterministic
    buf = io.BytesIO()
    w.write(buf)
    out["encrypted.pdf"] = buf.getvalue()
    out["empty.txt"] = b""
    out["empty.pdf"] = b""
    for name in ("notes.xyz", "fake.docx"):  # text under a name that promises another format
        out[name] = T.read_text(name).encode()
    out["altbestand_latin1.txt"] = T.ALTBESTAND_LATIN1.encode("latin-1")
    return out


# ------------------------------------------------------------------------------------------
# Generate
# ------------------------------------------------------------------------------------------
def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def generate() -> None:
    names = {d["name"] for d in T.DOCS}
    for folder, keep in ((SAMPLES, names), (SAMPLES_V2, set(T.V2))):
        if folder.is_dir():  # remove stale outputs of earlier runs
            for p in folder.iterdir():
                if p.is_file() and p.name not in keep:
                    p.unlink()
    for doc in T.DOCS:
        write(SAMPLES / doc["name"], render(doc))
    for doc in T.DOCS:
        if doc["name"] in T.V2:
            write(SAMPLES_V2 / doc["name"], render(doc, version=2))
    for name, data in make_bad().items():
        write(BAD / name, data)
    total = 0
    for folder in (SAMPLES, SAMPLES_V2, BAD):
        for p in sorted(folder.iterdir()):
            total += p.stat().st_size
            print(f"{p.relative_to(HERE)!s:55} {p.stat().st_size:>8} bytes")
    print(f"total {total} bytes")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify eval/goldenset_sample.yaml against the corpus")
    args = ap.parse_args()
    if args.check:
        from check_samples import check

        return check()
    generate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
