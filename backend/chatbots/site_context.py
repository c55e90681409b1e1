"""What the crawled content of a bot's collections says about the site: its title, the
headings of its pages, key terms and a sample of sections — the context of the Generate
buttons (F05). Read from the store with bounded queries (at most MAX_DOCS documents and
MAX_CHUNKS chunks), so a collection of thousands of pages does not slow the wizard."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sqlalchemy import select

from backend.store.chatbot_models import ChatbotCollection
from backend.store.models import (
    Chunk,
    CollectionDocument,
    Document,
    DocumentVersion,
    Section,
)

MAX_DOCS, MAX_CHUNKS, MAX_HEADINGS, MAX_TERMS, SAMPLE_SECTIONS = 200, 600, 12, 8, 4
TITLE_SEPARATORS = re.compile(r"\s+[|\-–—·:»]\s+")
WORD = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß-]{3,}")
GENERIC_TITLES = {"home", "startseite", "start", "index", "welcome", "willkommen", "homepage"}
_STOPWORDS_TEXT = """
about above after again against also although always among another any anyone are aren
because been before being below between both but can cannot could did does doing done down
during each either else even ever every few first from further had has have having here hers
herself him himself his how however into itself just last least less like made make many may
more most much must near need neither never next none nor not now off often once only other
others our ours ourselves out over own per please same shall she should since some such than
that the their theirs them themselves then there these they this those though through thus
too under until upon very was were what when where whether which while who whom whose why
will with within without would yet you your yours yourself yourselves with this that from
have will your more than also into only over such they them their page pages home menu click
here read contact privacy cookie cookies imprint login search website site navigation skip
content copyright rights reserved terms news back top aber alle allem allen aller alles also
andere anderen anderer anderes auch auf aus bei beim bereits bist bis dann darf darum dass
dein deine dem den denn der des dessen deshalb die dies diese diesem diesen dieser dieses
doch dort durch eine einem einen einer eines einig einige einmal etwa euch euer eure falls
für gegen gibt hab habe haben hat hatte hier hin hinter ihm ihn ihnen ihr ihre ihrem ihren
ihrer ihres immer indem ins ist jede jedem jeden jeder jedes jedoch jene jetzt kann kein
keine keinem keinen keiner können könnte machen man manche mehr mein meine mich mir mit muss
musste nach nicht nichts noch nun nur oder ohne seid sein seine sich sie sind sehr seit
selbst sich sollen sollte sondern sowie über uns unser unsere unter viel vom von vor wann
war waren warum was weil welche welchem welchen welcher welches wenn werde werden wie wieder
will wir wird wirst wo wollen würde zum zur zwar zwischen seite seiten startseite kontakt
impressum datenschutz suche
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass
class SiteContext:
    url: str
    host: str
    title: str
    language: str  # "de" or "en"
    pages: int
    headings: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    samples: list[tuple[str, str]] = field(default_factory=list)  # (page title, text)
    page_titles: list[str] = field(default_factory=list)


def _site_name(titles: list[str], start_title: str, host: str) -> str:
    """The part shared by most page titles ("Tickets | Lindholm Ferry" -> "Lindholm
    Ferry"), else the start page's title, else a name made from the host."""
    counts = Counter()
    for t in titles:
        counts.update({p.strip() for p in TITLE_SEPARATORS.split(t) if p.strip()})
    if counts and len(titles) >= 2:
        part, n = counts.most_common(1)[0]
        if n >= max(2, len(titles) // 2) and part.lower() not in GENERIC_TITLES:
            return part
    start = TITLE_SEPARATORS.split(start_title)[0].strip() if start_title else ""
    if start and start.lower() not in GENERIC_TITLES:
        return start
    name = host.removeprefix("www.").split(".")[0]
    return " ".join(w.capitalize() for w in re.split(r"[-_]", name) if w) or host


def _terms(texts: list[tuple[int, str]], boosted: list[str], exclude: set[str]) -> list[str]:
    """Words many pages use (document frequency, damped term frequency), those in titles and
    headings weighted up; stop words, generic web words and the site name left out; a plural
    counts with its singular. Lower case unless the word is capitalised inside sentences
    (names, German nouns)."""
    tf, proper = Counter(), Counter()
    per_doc: dict[int, set[str]] = defaultdict(set)
    for doc_id, text in texts:
        for m in WORD.finditer(text):
            w = m.group(0)
            low = w.lower().strip("-")
            if len(low) < 4 or low in STOPWORDS or low in exclude:
                continue
            tf[low] += 1
            before = text[:m.start()].rstrip()
            if w[0].isupper() and before and before[-1] not in ".!?:;\n":
                proper[low] += 1
            per_doc[doc_id].add(low)
    merge = {}  # the rarer of a singular and its plural -> the more frequent one
    for w in [w for w in tf if w.endswith("s") and w[:-1] in tf]:
        keep, drop = (w, w[:-1]) if tf[w] > tf[w[:-1]] else (w[:-1], w)
        merge[drop] = keep
    for drop, keep in merge.items():
        tf[keep] += tf.pop(drop)
        proper[keep] += proper.pop(drop, 0)
    df = Counter()
    for words in per_doc.values():
        df.update({merge.get(w, w) for w in words})
    boost = Counter(merge.get(w.lower(), w.lower()) for t in boosted for w in WORD.findall(t))
    score = {w: df[w] * (1 + math.log(tf[w])) + 2 * boost[w] for w in tf}
    ranked = sorted(score, key=lambda w: (-score[w], w))[:MAX_TERMS]
    return [w.capitalize() if proper[w] * 2 >= tf[w] else w for w in ranked]


def site_context(s, bot_id: int, source_url: str) -> SiteContext | None:
    """None when the bot's collections hold no indexed page."""
    colls = select(ChatbotCollection.collection_id).where(ChatbotCollection.chatbot_id == bot_id)
    rows = s.execute(
        select(Document.id, Document.title, Document.source_uri, DocumentVersion.id,
               DocumentVersion.language)
        .join(DocumentVersion, DocumentVersion.id == Document.active_version_id)
        .where(Document.id.in_(select(CollectionDocument.document_id)
                               .where(CollectionDocument.collection_id.in_(colls))),
               Document.status == "active", DocumentVersion.status == "indexed")
        .order_by(Document.id).limit(MAX_DOCS)).all()
    if not rows:
        return None
    url = source_url or rows[0].source_uri
    host = urlsplit(url).hostname or ""
    norm = url.rstrip("/")
    start = next((r for r in rows if r.source_uri.rstrip("/") == norm),
                 min(rows, key=lambda r: len(r.source_uri)))
    titles = [r.title for r in rows if r.title]
    title = _site_name(titles, start.title, host)
    langs = Counter(r.language for r in rows if r.language)
    language = "de" if langs and langs.most_common(1)[0][0] == "de" else "en"
    version_ids = [r[3] for r in rows]
    headings: list[str] = []
    for t in s.scalars(select(Section.title).where(Section.version_id.in_(version_ids),
                                                  Section.title != "")
                       .order_by(Section.version_id, Section.ordinal).limit(MAX_DOCS * 4)):
        t = " ".join(t.split())
        parts = [p.strip() for p in TITLE_SEPARATORS.split(t)]
        if t and title not in parts and t not in headings and len(t) <= 120:
            headings.append(t)
    chunks = s.execute(select(Chunk.document_id, Chunk.text)
                       .where(Chunk.version_id.in_(version_ids))
                       .order_by(Chunk.document_id, Chunk.ordinal).limit(MAX_CHUNKS)).all()
    page_titles = [p for p in (TITLE_SEPARATORS.split(r.title)[0].strip()
                               for r in rows if r.title) if p and p != title]
    exclude = {w.lower() for w in WORD.findall(title)}
    terms = _terms([(d, t) for d, t in chunks], page_titles + headings, exclude)
    by_doc = {r[0]: r.title for r in rows}
    samples, used = [], set()
    for d, text in chunks:  # the first chunk of different pages
        if d not in used and len(samples) < SAMPLE_SECTIONS:
            used.add(d)
            samples.append((by_doc.get(d, ""), " ".join(text.split())[:600]))
    page_titles = list(dict.fromkeys(page_titles))[:MAX_HEADINGS]
    headings = [h for h in headings if h not in page_titles] or headings
    return SiteContext(url, host, title, language, len(rows), headings[:MAX_HEADINGS], terms,
                       samples, page_titles)
