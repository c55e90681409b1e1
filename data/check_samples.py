"""`python data/make_samples.py --check`: verify eval/goldenset_sample.yaml against the sample
corpus (the source texts in data/sample_texts/ and the files data/make_samples.py generated).

For every goldenset query: the relevant documents exist, every `section` is a heading of that
document (in the source data and in the generated file), and every `reference_contexts` entry
occurs (whitespace-insensitively) both in the source text and in the text extracted from the
generated file with the ordinary libraries (pypdf, python-docx, odfpy, an HTML parser restricted
to <main>). Contexts that only match after joining words hyphenated at a line end are reported
as notes, not errors.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import sample_texts as T  # noqa: E402
from make_samples import SAMPLES, SAMPLES_V2  # noqa: E402
from sample_dsl import source_headings, source_text  # noqa: E402

GOLDENSET = ROOT / "eval" / "goldenset_sample.yaml"
ALLOWED_TAGS = {"keyword", "paraphrase", "structure", "factual", "multi_doc", "inventory"}


# ------------------------------------------------------------------------------------------
# Extraction for --check (plain library calls; independent of ragscope's own extractors)
# ------------------------------------------------------------------------------------------
def extract(path: Path) -> tuple[str, list[str]]:
    """Return (text, headings) of a generated file."""
    ext = path.suffix.lower()
    if ext == ".pdf":
        from pypdf import PdfReader

        r = PdfReader(str(path))
        text = "\n".join(p.extract_text() or "" for p in r.pages)
        lines = [ln.strip() for ln in text.split("\n")]
        return text, lines  # headings: any full line (PDF has no markup); outline checked separately
    if ext == ".docx":
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        d = docx.Document(str(path))
        parts, heads = [], []
        for el in d.element.body.iterchildren():
            if el.tag.endswith("}p"):
                p = Paragraph(el, d)
                parts.append(p.text)
                if p.style is not None and p.style.name.startswith("Heading"):
                    heads.append(p.text.strip())
            elif el.tag.endswith("}tbl"):
                for row in Table(el, d).rows:
                    parts.append(" | ".join(c.text for c in row.cells))
                    parts.extend(c.text for c in row.cells)
        return "\n".join(parts), heads
    if ext == ".odt":
        from odf import teletype, text as odftext
        from odf.opendocument import load

        o = load(str(path))
        heads = [teletype.extractText(h).strip() for h in o.getElementsByType(odftext.H)]
        paras = [teletype.extractText(p) for p in o.getElementsByType(odftext.P)]
        return "\n".join(heads + paras), heads
    if ext in (".html", ".htm"):
        return _html_main(path.read_text("utf-8"))
    raw = path.read_text("utf-8")
    doc = next(d for d in T.DOCS if d["name"] == path.name)
    return raw, source_headings(doc)


def _html_main(src: str) -> tuple[str, list[str]]:
    from html.parser import HTMLParser

    class P(HTMLParser):
        def __init__(self):
            super().__init__()
            self.in_main = 0
            self.skip = 0
            self.parts: list[str] = []
            self.heads: list[str] = []
            self.cur_head: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "main":
                self.in_main += 1
            if tag in ("script", "style"):
                self.skip += 1
            if self.in_main and re.match(r"^h[1-6]$", tag):
                self.cur_head = []
            if tag in ("p", "li", "h1", "h2", "h3", "h4", "tr", "pre", "td", "th"):
                self.parts.append("\n")

        def handle_endtag(self, tag):
            if tag == "main":
                self.in_main -= 1
            if tag in ("script", "style"):
                self.skip -= 1
            if re.match(r"^h[1-6]$", tag) and self.cur_head is not None:
                self.heads.append("".join(self.cur_head).strip())
                self.cur_head = None
            if tag in ("td", "th"):
                self.parts.append(" | ")

        def handle_data(self, data):
            if self.in_main and not self.skip:
                self.parts.append(data)
                if self.cur_head is not None:
                    self.cur_head.append(data)

    p = P()
    p.feed(src)
    return "".join(p.parts), p.heads


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def dehyphenate(s: str) -> str:
    return re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", s)


# ------------------------------------------------------------------------------------------
# Check
# ------------------------------------------------------------------------------------------
def check() -> int:
    import yaml

    errors: list[str] = []
    notes: list[str] = []
    gs = yaml.safe_load(GOLDENSET.read_text("utf-8"))
    by_name = {d["name"]: d for d in T.DOCS}
    src_cache, ext_cache = {}, {}

    def src_of(name):
        if name not in src_cache:
            src_cache[name] = norm(source_text(by_name[name]))
        return src_cache[name]

    def ext_of(name):
        if name not in ext_cache:
            text, heads = extract(SAMPLES / name)
            ext_cache[name] = (norm(text), norm(dehyphenate(text)), {norm(h) for h in heads})
        return ext_cache[name]

    # Corpus-level checks: files present, determinism-relevant structure, outline
    for d in T.DOCS:
        if not (SAMPLES / d["name"]).is_file():
            errors.append(f"missing sample file {d['name']} (run make_samples.py first)")
    if errors:
        print("\n".join(errors))
        return 1
    from pypdf import PdfReader

    for d in T.DOCS:
        if d["fmt"] != "pdf":
            continue
        r = PdfReader(str(SAMPLES / d["name"]))
        has_outline = bool(r.outline)
        if has_outline != bool(d.get("outline")):
            errors.append(f"{d['name']}: outline present={has_outline}, expected {bool(d.get('outline'))}")
        if d.get("outline"):
            def flat(items, out):
                for it in items:
                    if isinstance(it, list):
                        flat(it, out)
                    else:
                        out.append(it.title)
                return out
            titles = flat(r.outline, [])
            if titles != source_headings(d):
                errors.append(f"{d['name']}: outline titles differ from headings: {titles}")
        text = "\n".join(p.extract_text() for p in r.pages)
        for ch in "äöüß" if d["lang"] == "de" else "":
            if ch not in text:
                errors.append(f"{d['name']}: umlaut {ch!r} missing from extracted text")
        if d.get("hyphenate") and not re.search(r"\w-\n\w", text):
            errors.append(f"{d['name']}: no hyphenated line end found in extracted text")

    ids = set()
    tags = Counter()
    langs = Counter()
    for q in gs["queries"]:
        qid = q.get("id")
        where = f"{qid}"
        if qid in ids:
            errors.append(f"{where}: duplicate id")
        ids.add(qid)
        for key in ("question", "language", "tags", "relevant", "reference_answer", "reference_contexts"):
            if not q.get(key):
                errors.append(f"{where}: missing {key}")
        if q.get("language") not in ("de", "en"):
            errors.append(f"{where}: language must be de or en")
        langs[q.get("language")] += 1
        for t in q.get("tags") or []:
            tags[t] += 1
            if t not in ALLOWED_TAGS:
                errors.append(f"{where}: unknown tag {t}")
        rel_docs = []
        for rel in q.get("relevant") or []:
            name = rel.get("doc")
            if name not in by_name:
                errors.append(f"{where}: relevant doc {name!r} is not a sample document")
                continue
            rel_docs.append(name)
            if rel.get("grade") not in (1, 2):
                errors.append(f"{where}: grade must be 1 or 2 ({name})")
            sec = rel.get("section")
            if sec:
                heads = source_headings(by_name[name])
                if sec not in heads:
                    errors.append(f"{where}: section {sec!r} is not a heading of {name}")
                elif heads.count(sec) > 1 and by_name[name]["fmt"] != "txt":
                    # (txt minutes list every TOP twice: in the agenda and as the section line)
                    errors.append(f"{where}: section {sec!r} is ambiguous in {name}")
                if norm(sec) not in ext_of(name)[2]:
                    errors.append(f"{where}: section {sec!r} not found as a heading line in extracted {name}")
        if not any(r.get("grade") == 2 for r in q.get("relevant") or []):
            errors.append(f"{where}: needs at least one grade-2 document")
        if "multi_doc" in (q.get("tags") or []) and len({r["doc"] for r in q["relevant"] if r.get("grade") == 2}) < 2:
            errors.append(f"{where}: multi_doc query needs >= 2 grade-2 documents")
        for ctx in q.get("reference_contexts") or []:
            n = norm(ctx)
            if re.search(r"[`*]", ctx):
                notes.append(f"{where}: context contains Markdown markup: {ctx[:50]!r}")
            hits = [d for d in rel_docs if n in src_of(d)]
            if not hits:
                errors.append(f"{where}: context not found verbatim in the source of {rel_docs}: {ctx[:70]!r}")
                continue
            for d in hits:
                plain, dehyph, _ = ext_of(d)
                if n in plain:
                    continue
                if n in dehyph:
                    notes.append(f"{where}: context in {d} matches only after de-hyphenation: {ctx[:60]!r}")
                else:
                    errors.append(f"{where}: context not in text extracted from {d}: {ctx[:70]!r}")
    # v2 must differ from v1
    for name in T.V2:
        if (SAMPLES / name).read_bytes() == (SAMPLES_V2 / name).read_bytes():
            errors.append(f"samples_v2/{name} is identical to v1")
    for n in notes:
        print("note:", n)
    for e in errors:
        print("ERROR:", e)
    print(f"{len(gs['queries'])} queries; languages {dict(langs)}; tags {dict(sorted(tags.items()))}")
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0
