"""Processing profiles: how a document's sections and chunks are cut, chosen per version by
its classification (backend/ingest/classify.py; the document type's `default_profile` in the
registry, or a per-document override). The profile's name and parameters are recorded in the
version's meta (`meta.profile`, `meta.chunking`); when they no longer match what the version
would get now (a type's profile was changed on the admin page, a document was given another
profile, or a profile's parameters changed), `reclassify`/`reindex` re-section and re-chunk
that version and only that one (`Ingestor.rechunk_affected`).

`generic_text` is exactly the sectioning and chunking ragscope had before profiles (its chunk
ids are unchanged), so existing versions keep their chunks. Chunk size and overlap come from
the settings (`chunk_size`, `chunk_overlap`) times the profile's factors."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Profile:
    name: str
    label: str
    description: str
    # ---- sectioning ----
    numbered_headings: bool = True  # "3.2 Title" lines become headings (besides markup)
    keyword_headings: bool = True  # "TOP 3", "§ 4", "Anlage 2", "Kapitel 3" lines become headings
    page_sections: bool = True  # one section per page when nothing else gives structure
    # ---- chunking ----
    size_factor: float = 1.0  # chunk size = chunk_size * size_factor
    overlap_factor: float = 1.0
    keep_whole: tuple[str, ...] = ()  # span kinds ("code", "table") not cut inside ...
    max_whole_factor: float = 2.0  # ... while the chunk stays below size * this
    whole_section_factor: float | None = None  # a section up to size * this is one chunk
    lines_only: bool = False  # cut only at line ends (never inside a line: rows, code)
    page_bounds: bool = False  # a chunk never crosses a page boundary
    extra: dict = field(default_factory=dict)

    def params(self) -> dict:
        """The parameters that shape sections and chunks (recorded per version)."""
        d = asdict(self)
        for k in ("name", "label", "description", "extra"):
            d.pop(k)
        d["keep_whole"] = list(self.keep_whole)
        return d

    def variant(self) -> str:
        """"" for the legacy generic chunking; else a short fingerprint of name + params that
        goes into the chunk ids (other parameters, other chunks, other ids)."""
        if self.params() == GENERIC_PARAMS:
            return ""
        raw = json.dumps({"profile": self.name, **self.params()}, sort_keys=True)
        return f"{self.name}:{hashlib.sha256(raw.encode()).hexdigest()[:12]}"

    def sizes(self, chunk_size: int, chunk_overlap: int) -> tuple[int, int]:
        size = max(100, round(chunk_size * self.size_factor))
        overlap = min(round(chunk_overlap * self.overlap_factor), size // 2 - 1)
        return size, max(0, overlap)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("generic_text", "Generic text",
            "Headings from markup, outline and numbering; chunks cut at paragraphs, lines, "
            "sentences; one section per page when there are no headings."),
    Profile("web_structured", "Web page",
            "Headings from the page's markup only (no numbering patterns: web text is full "
            "of numbered lists); code blocks and tables kept whole in one chunk.",
            numbered_headings=False, keep_whole=("code", "table")),
    Profile("book_hierarchical", "Book / manual",
            "Chapters and numbered sections nest deeply; longer chunks (1.25 x) so an "
            "explanation stays together; no page sections.",
            size_factor=1.25, overlap_factor=1.25, page_sections=False,
            keep_whole=("table",)),
    Profile("meeting_structured", "Meeting minutes",
            "Agenda items (TOP, Agenda item) are the sections; numbered list lines are not "
            "headings; an agenda item up to 1.5 x the chunk size stays one chunk.",
            numbered_headings=False, whole_section_factor=1.5, keep_whole=("table",)),
    Profile("policy_legal", "Policy / legal",
            "§, Artikel and numbered clauses are the sections; a clause up to 1.75 x the "
            "chunk size stays one chunk, so a rule is never cut from its exceptions.",
            whole_section_factor=1.75, keep_whole=("table",)),
    Profile("code_structured", "Code and code documentation",
            "Sections from symbols (classes, functions) of source files and from headings of "
            "READMEs/docs; code blocks kept whole up to 3 x the chunk size; cuts only at line "
            "ends; numbered patterns are not headings (version numbers, lists).",
            numbered_headings=False, keep_whole=("code", "table"), max_whole_factor=3.0,
            lines_only=True),
    Profile("table_structured", "Tables",
            "Table rows are never cut; a table is kept whole up to 3 x the chunk size.",
            keep_whole=("table",), max_whole_factor=3.0, lines_only=True),
    Profile("ocr_resilient", "Scanned (OCR)",
            "Chunks never cross a page (page anchors stay exact for scans); more overlap "
            "(1.5 x) because OCR errors cut words; one section per page without headings.",
            overlap_factor=1.5, page_bounds=True),
)}
GENERIC_PARAMS = Profile("generic_text", "", "").params()
DEFAULT_PROFILE = "generic_text"


def get_profile(name: str | None) -> Profile:
    return PROFILES.get(name or DEFAULT_PROFILE, PROFILES[DEFAULT_PROFILE])


def chunking_record(profile: Profile, chunk_size: int, chunk_overlap: int) -> dict:
    """What `meta.chunking` of a version chunked with this profile says. For the generic
    profile it is the record versions had before profiles ({size, overlap})."""
    size, overlap = profile.sizes(chunk_size, chunk_overlap)
    rec: dict = {"size": size, "overlap": overlap}
    if profile.variant():
        rec["profile"] = profile.variant()
    return rec
