"""The shape of the domain-rule files in `config/domain/` (issue 26, item 7; seed 004: "YAML
ist Source of Truth für konfigurierbare Fachlogik"), as pydantic models: each file is
validated as a whole on load, so a bad edit is refused with the file, line and field named
(backend/config/domain_rules.py maps a pydantic error location to its YAML line).

Files and what reads them:

* vocabulary.yaml - groups of synonyms; a query word of a group adds the group's other words
  to the keyword query (backend/retrieval/domain_query.py).
* search_repair.yaml - typos and variant spellings -> canonical forms, applied to the query
  before retrieval; `protected` words are never repaired or expanded.
* intents.yaml - the analysis router's cue words (backend/answer/intents.py): per extractor
  and per document kind, as regular-expression alternatives.
* domains.yaml - domain lists: the inventory nouns that name a document kind
  (backend/retrieval/query.py)."""
from __future__ import annotations

import re

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

# The extractors the analysis can run (backend/analysis/extractors; a test keeps this list
# equal to the registry's: the config layer cannot import the analysis layer).
EXTRACTOR_NAMES = ("meeting_actions", "decisions", "deadlines", "requirements", "config_keys",
                   "setup_steps", "api_surface", "operational_notes", "risks", "entities")
DOC_KIND_NAMES = ("minutes", "policy", "manual")  # backend/analysis/types.py DOC_KINDS
_WORD = re.compile(r"^[\w][\w .'/&+-]*$", re.UNICODE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _word(v: str) -> str:
    v = " ".join(str(v).split())
    if not v or not _WORD.match(v):
        raise ValueError(f"{v!r} is not a word or phrase (letters, digits, spaces, . ' / & + -)")
    return v


def _pattern(v: str) -> str:
    try:
        re.compile(v)
    except re.error as e:
        raise ValueError(f"not a valid regular expression ({e})") from None
    if re.compile(v).match(""):
        raise ValueError("the pattern matches the empty text (it would match every question)")
    return v


Cue = Annotated[str, AfterValidator(_pattern)]  # so an error names extract_cues.<name>.<n>
Cues = Annotated[list[Cue], Field(min_length=1, description="regular-expression alternatives")]


class SynonymGroup(_Strict):
    words: list[str] = Field(min_length=2, description="words that mean the same in this domain")
    note: str = ""

    _w = field_validator("words", mode="before")(
        classmethod(lambda cls, v: [_word(x) for x in v] if isinstance(v, list) else v))


class Vocabulary(_Strict):
    version: int = 1
    max_added: int = Field(8, ge=0, le=50, description="synonyms added to one query at most")
    synonyms: list[SynonymGroup] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> "Vocabulary":
        seen: dict[str, int] = {}
        for i, g in enumerate(self.synonyms):
            for w in g.words:
                k = w.casefold()
                if k in seen and seen[k] != i:
                    raise ValueError(f"{w!r} is in synonym groups {seen[k]} and {i}: a word "
                                     "may be in one group only")
                seen[k] = i
        return self


class Repair(_Strict):
    wrong: str
    right: str
    note: str = ""

    _w = field_validator("wrong", "right", mode="before")(classmethod(lambda cls, v: _word(v)))

    @model_validator(mode="after")
    def _differs(self) -> "Repair":
        if self.wrong.casefold() == self.right.casefold():
            raise ValueError(f"repair {self.wrong!r} -> {self.right!r} changes nothing")
        return self


class SearchRepair(_Strict):
    version: int = 1
    repairs: list[Repair] = Field(default_factory=list)
    protected: list[str] = Field(default_factory=list,
                                 description="words never repaired or expanded")

    _p = field_validator("protected", mode="before")(
        classmethod(lambda cls, v: [_word(x) for x in v] if isinstance(v, list) else v))

    @model_validator(mode="after")
    def _consistent(self) -> "SearchRepair":
        wrong = {r.wrong.casefold(): r for r in self.repairs}
        if len(wrong) != len(self.repairs):
            raise ValueError("a wrong form is listed twice in repairs")
        for r in self.repairs:
            if r.right.casefold() in wrong:
                raise ValueError(f"repair chain: {r.wrong!r} -> {r.right!r}, which is itself "
                                 "repaired; name the final form")
        clash = sorted(w for w in (p.casefold() for p in self.protected) if w in wrong)
        if clash:
            raise ValueError(f"protected words are repaired too: {', '.join(clash)}")
        return self


def _only_known(v: dict, known, what: str) -> dict:
    """`v` when each of its keys is one of `known`; else the error naming the others."""
    unknown = sorted(set(v) - set(known))
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")
    return v


class Intents(_Strict):
    version: int = 1
    extract_cues: dict[str, Cues]
    doc_type_cues: dict[str, Cues]
    singular_cues: list[str] = Field(default_factory=list)

    @field_validator("extract_cues")
    @classmethod
    def _extractors(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        return _only_known(v, EXTRACTOR_NAMES, "extractor(s)")

    @field_validator("doc_type_cues")
    @classmethod
    def _kinds(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        return _only_known(v, DOC_KIND_NAMES, "document kind(s)")

    @field_validator("singular_cues")
    @classmethod
    def _singular(cls, v: list[str]) -> list[str]:
        return [" ".join(str(x).split()).lower() for x in v]


class DocumentKind(_Strict):
    types: list[str] = Field(min_length=1, description="document type names of the registry")
    nouns_de: list[str] = Field(default_factory=list)
    nouns_en: list[str] = Field(default_factory=list)


class Domains(_Strict):
    version: int = 1
    inventory_nouns_de: list[str] = Field(min_length=1, description="generic German nouns")
    inventory_nouns_en: list[str] = Field(min_length=1, description="generic English nouns")
    document_kinds: dict[str, DocumentKind] = Field(default_factory=dict)

    _n = field_validator("inventory_nouns_de", "inventory_nouns_en", mode="before")(
        classmethod(lambda cls, v: [_word(x).lower() for x in v] if isinstance(v, list) else v))


# file name -> model; the order is the order of `status`
FILES: dict[str, type[BaseModel]] = {
    "vocabulary.yaml": Vocabulary,
    "search_repair.yaml": SearchRepair,
    "intents.yaml": Intents,
    "domains.yaml": Domains,
}
