"""The tantivy keyword index's schema and analyzers (backend/index/tantivy_index.py): which
fields a chunk has, which are stored, and how each field's text is tokenised (German and
English stemming, a plain field for titles). Changing any of it changes `ANALYZER`, so an index
written with another schema is refused (IndexMismatch) instead of being read wrongly."""
from __future__ import annotations

import tantivy

ANALYZER = "tantivy:de_stem+en_stem:v1"
_TOK_DE, _TOK_EN, _TOK_PLAIN = "rs_de_v1", "rs_en_v1", "rs_plain_v1"
TEXT_FIELDS = ("text_de", "text_en")
META_FIELDS = ("title", "section_title", "filename")
MEMBERSHIPS = "memberships"
STORED = ("chunk_id", "document_id", "version_id", "doc_type", "language", *META_FIELDS)
DEFAULT_BOOSTS = {"text_de": 1.0, "text_en": 1.0, "title": 0.5, "section_title": 0.5, "filename": 0.3}


def _analyzer(language: str | None, *, stopwords: bool = False) -> tantivy.TextAnalyzer:
    b = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    b = b.filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase())
    if stopwords and language:
        b = b.filter(tantivy.Filter.stopword(language))
    b = b.filter(tantivy.Filter.ascii_fold())
    if language:
        b = b.filter(tantivy.Filter.stemmer(language))
    return b.build()


def _build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    sb.add_integer_field("document_id", stored=True, indexed=True, fast=True)
    sb.add_integer_field("version_id", stored=True, indexed=True, fast=True)
    sb.add_text_field("doc_type", stored=True, tokenizer_name="raw")
    sb.add_text_field("language", stored=True, tokenizer_name="raw")
    sb.add_text_field("text_de", stored=True, tokenizer_name=_TOK_DE)  # stored once, for snippets
    sb.add_text_field("text_en", stored=False, tokenizer_name=_TOK_EN)
    for name in META_FIELDS:  # stored: a chunk can be rewritten from its stored fields
        sb.add_text_field(name, stored=True, tokenizer_name=_TOK_PLAIN)
    # "<kind>:<id>" tokens, one value each (backend.index.base.MEMBERSHIP_KINDS)
    sb.add_text_field(MEMBERSHIPS, stored=True, tokenizer_name="raw")
    return sb.build()
