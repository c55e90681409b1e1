"""Deterministic format checker (seed 001, "Formatierungsprüfer"): character checks are done
by code, never by a model, because models hallucinate on them ("2 dashes found" in a text
without any). Rules, each switched on by the answer profile's configuration:

| rule                        | configuration                                  | check                         |
| emojis_forbidden            | structure.formatting.emojis = false             | Unicode emoji properties       |
| markdown_forbidden          | structure.output.format = "plain text"          | **bold**, *italic*, # headers  |
| bold_forbidden              | structure.formatting.bold = false               | **text**, __text__             |
| dashes_forbidden            | profile.grammar_and_syntax.dashes = "forbidden" | – (U+2013), — (U+2014)         |
| hashtags_forbidden          | structure.formatting.hashtags = "none"          | #Hashtag pattern               |
| exclamation_marks_sparing   | profile.formatting.exclamation_marks = "sparing"| at most 2 exclamation marks    |
| sentence_too_long           | profile.grammar_and_syntax.max_sentence_words   | words per sentence (N)         |
| forbidden_words             | profile.vocabulary.forbidden_words = [...]      | whole words, any case          |

The last two come from an author profile (backend/chat/profile_rules.py, issue 26).

The seed's German keys are accepted too (formatierung, ausgabe.format = "reiner Text",
fettschrift, hashtags = "keine", grammatik_und_satzbau.gedankenstriche, ausrufezeichen).
The result has the seed's feedback format: rating, score, passed, issues, suggestions, summary,
deterministic (always true here), plus `details` (rule, type, position of every finding).
`strip_markdown` is the seed's post-processing for plain-text output."""
from __future__ import annotations

import re
from typing import Any

import regex

from backend.answer.evidence.sentences import split_sentences

MAX_EXCLAMATION_MARKS = 2
_POINTS_PER_RULE = 2

# An emoji as Unicode defines it (UTS #51): a character shown as emoji by default
# (Emoji_Presentation), a pictograph made emoji by VS16, or a keycap; with its skin-tone
# modifiers and ZWJ-joined parts it counts once. Arrows, stars and geometric shapes (→ ★ ▪)
# are text: the old code-point ranges called ragscope's own "→" an emoji.
_PICTO = r"(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F)\p{Emoji_Modifier}?\uFE0F?"
_EMOJI = regex.compile(rf"\p{{Regional_Indicator}}{{2}}|{_PICTO}(?:\u200D(?:{_PICTO}|\p{{Extended_Pictographic}}))*"
                       r"|[0-9#*]\uFE0F?\u20E3")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__", re.S)
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![*\w])")
_HEADER = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S.*$", re.M)
_HASHTAG = re.compile(r"(?<![\w&#/])#[^\W\d_][\w-]*", re.UNICODE)
_PLAIN_FORMATS = {"plain text", "plain", "reiner text", "text"}

_SUGGESTIONS = {
    "emojis_forbidden": "Remove the emojis; use words or plain list markers instead.",
    "markdown_forbidden": "Write plain text: no **bold**, *italic* or # headers.",
    "bold_forbidden": "Remove the bold markup (**text**, __text__).",
    "dashes_forbidden": "Replace en/em dashes (– —) with a hyphen, comma or full stop.",
    "hashtags_forbidden": "Remove the hashtags.",
    "exclamation_marks_sparing": f"Use at most {MAX_EXCLAMATION_MARKS} exclamation marks.",
    "sentence_too_long": "Split the long sentences into shorter ones.",
    "forbidden_words": "Replace the words the author profile forbids.",
}
_CITATION = re.compile(r"\[\d[\d,;\s]*\]")


def _get(cfg: dict | None, *paths: tuple[str, ...]) -> Any:
    """The first value found under any of the (English or German) key paths."""
    for path in paths:
        node: Any = cfg or {}
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            return node
    return None


def _off(value: Any) -> bool:
    """True when a setting forbids the thing ("forbidden", "none", False, "keine", ...)."""
    if isinstance(value, bool):
        return not value
    return str(value).strip().lower() in {"forbidden", "none", "no", "never", "false", "off",
                                          "verboten", "keine", "nein", "nie"}


def active_rules(structure_config: dict | None, profile_config: dict | None) -> list[str]:
    s, p = structure_config, profile_config
    rules = []
    emojis = _get(s, ("formatting", "emojis"), ("formatierung", "emojis"))
    if emojis is not None and _off(emojis):
        rules.append("emojis_forbidden")
    fmt = _get(s, ("output", "format"), ("ausgabe", "format"))
    if fmt is not None and str(fmt).strip().lower() in _PLAIN_FORMATS:
        rules.append("markdown_forbidden")
    bold = _get(s, ("formatting", "bold"), ("formatierung", "fettschrift"))
    if bold is not None and _off(bold):
        rules.append("bold_forbidden")
    dashes = _get(p, ("grammar_and_syntax", "dashes"), ("grammatik_und_satzbau", "gedankenstriche"))
    if dashes is not None and _off(dashes):
        rules.append("dashes_forbidden")
    tags = _get(s, ("formatting", "hashtags"), ("formatierung", "hashtags"))
    if tags is not None and _off(tags):
        rules.append("hashtags_forbidden")
    excl = _get(p, ("formatting", "exclamation_marks"), ("formatierung", "ausrufezeichen"))
    if excl is not None and str(excl).strip().lower() in {"sparing", "sparsam", "few"}:
        rules.append("exclamation_marks_sparing")
    if _sentence_limit(p):
        rules.append("sentence_too_long")
    if _forbidden(p):
        rules.append("forbidden_words")
    return rules


def _sentence_limit(p: dict | None) -> int | None:
    n = _get(p, ("grammar_and_syntax", "max_sentence_words"),
             ("grammatik_und_satzbau", "max_satzlaenge"))
    return int(n) if isinstance(n, (int, float)) and n > 0 else None


def _forbidden(p: dict | None) -> list[str]:
    words = _get(p, ("vocabulary", "forbidden_words"), ("wortwahl", "verbotene_woerter"))
    return [str(w) for w in words or [] if str(w).strip()]


# ---- the single checks: each returns findings {"type", "position", "text"} ---------------

def check_emojis(text: str) -> list[dict]:
    return [{"type": "emoji", "position": m.start(), "text": m.group()}
            for m in _EMOJI.finditer(text)]


def check_markdown(text: str) -> list[dict]:
    out = [{"type": "bold", "position": m.start(), "text": m.group()[:40]}
           for m in _BOLD.finditer(text)]
    out += [{"type": "italic", "position": m.start(), "text": m.group()[:40]}
            for m in _ITALIC.finditer(text)]
    out += [{"type": "header", "position": m.start(), "text": m.group().strip()[:40]}
            for m in _HEADER.finditer(text)]
    return sorted(out, key=lambda f: f["position"])


def check_bold(text: str) -> list[dict]:
    return [{"type": "bold", "position": m.start(), "text": m.group()[:40]}
            for m in _BOLD.finditer(text)]


def check_dashes(text: str) -> list[dict]:
    """Exact Unicode characters, as in the seed's check_gedankenstriche."""
    issues = []
    for i, char in enumerate(text):
        if char == "\u2013":
            issues.append({"type": "en_dash", "position": i, "text": char})
        elif char == "\u2014":
            issues.append({"type": "em_dash", "position": i, "text": char})
    return issues


def check_hashtags(text: str) -> list[dict]:
    return [{"type": "hashtag", "position": m.start(), "text": m.group()}
            for m in _HASHTAG.finditer(text)]


def check_exclamation_marks(text: str) -> list[dict]:
    marks = [i for i, c in enumerate(text) if c == "!"]
    if len(marks) <= MAX_EXCLAMATION_MARKS:
        return []
    return [{"type": "exclamation_mark", "position": i, "text": "!"} for i in marks]


def check_sentence_length(text: str, limit: int) -> list[dict]:
    """Sentences (the answer's own splitter: "z. B." and "1. Januar" end none) with more
    than `limit` words; citation marks do not count as words."""
    out, start = [], 0
    for line in text.splitlines(keepends=True):
        for sentence in split_sentences(line):
            n = len(regex.findall(r"\w+", _CITATION.sub(" ", sentence)))
            if n > limit:
                pos = text.find(sentence, start)
                out.append({"type": "long_sentence", "position": max(pos, 0),
                            "text": f"{n} words: {sentence[:40]}"})
        start += len(line)
    return out


def check_forbidden_words(text: str, words: list[str]) -> list[dict]:
    """Each forbidden word or phrase as a whole word, in any case ("super" not in
    "Superlativ")."""
    out = []
    for w in words:
        pattern = regex.compile(rf"(?<!\w){regex.escape(w.strip())}(?!\w)", regex.I)
        out += [{"type": "forbidden_word", "position": m.start(), "text": m.group()}
                for m in pattern.finditer(text)]
    return sorted(out, key=lambda f: f["position"])


_CHECKS = {
    "emojis_forbidden": check_emojis,
    "markdown_forbidden": check_markdown,
    "bold_forbidden": check_bold,
    "dashes_forbidden": check_dashes,
    "hashtags_forbidden": check_hashtags,
    "exclamation_marks_sparing": check_exclamation_marks,
}


def _describe(rule: str, findings: list[dict]) -> str:
    n = len(findings)
    pos = ", ".join(str(f["position"]) for f in findings[:8]) + (", …" if n > 8 else "")
    if rule == "dashes_forbidden":
        en = sum(f["type"] == "en_dash" for f in findings)
        em = n - en
        parts = [f"{en} en dash(es) (–)" if en else "", f"{em} em dash(es) (—)" if em else ""]
        return f"{' and '.join(p for p in parts if p)} at position(s) {pos}"
    if rule == "exclamation_marks_sparing":
        return f"{n} exclamation marks (at most {MAX_EXCLAMATION_MARKS}) at position(s) {pos}"
    if rule == "sentence_too_long":
        return f"{n} sentence(s) longer than the limit at position(s) {pos}"
    if rule == "forbidden_words":
        sample = ", ".join(dict.fromkeys(f["text"] for f in findings[:5]))
        return f"{n} forbidden word(s) ({sample}) at position(s) {pos}"
    what = {"emojis_forbidden": "emoji(s)", "markdown_forbidden": "Markdown mark-up(s)",
            "bold_forbidden": "bold mark-up(s)", "hashtags_forbidden": "hashtag(s)"}[rule]
    sample = ", ".join(dict.fromkeys(f["text"] for f in findings[:5]))
    return f"{n} {what} ({sample}) at position(s) {pos}"


def check_formatting(text: str, structure_config: dict | None = None,
                     profile_config: dict | None = None) -> dict:
    """The seed's `check_formatting`: run every rule the configuration switches on."""
    rules = active_rules(structure_config, profile_config)
    issues, suggestions, details = [], [], []
    for rule in rules:
        if rule == "sentence_too_long":
            findings = check_sentence_length(text, _sentence_limit(profile_config))
        elif rule == "forbidden_words":
            findings = check_forbidden_words(text, _forbidden(profile_config))
        else:
            findings = _CHECKS[rule](text)
        if findings:
            issues.append(f"{rule}: {_describe(rule, findings)}")
            suggestions.append(_SUGGESTIONS[rule])
            details += [{"rule": rule, **f} for f in findings]
    failed = len(suggestions)
    rating = max(0, 10 - _POINTS_PER_RULE * failed)
    summary = ("No errors" if not failed else
               f"{failed} of {len(rules)} format rule(s) violated: "
               + ", ".join(i.split(":")[0] for i in issues))
    return {"rating": rating, "score": rating, "passed": not failed, "issues": issues,
            "suggestions": suggestions, "summary": summary, "deterministic": True,
            "rules": rules, "details": details}


# ---- post-processing for plain-text output (seed: persistence.strip_markdown) ------------

_REPLACEMENTS = str.maketrans({
    "\u2013": "-", "\u2014": "-",  # en and em dash
    "\u201e": '"', "\u201c": '"', "\u201d": '"', "\u201f": '"',  # „ “ ” ‟
    "\u201a": "'", "\u2018": "'", "\u2019": "'", "\u201b": "'",  # ‚ ‘ ’ ‛
})


def strip_markdown(text: str) -> str:
    """Dashes to hyphens, typographic quotes to straight ones, **bold**/__bold__ and *italic*
    to their plain words. Everything else is left as it is."""
    text = text.translate(_REPLACEMENTS)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    return _ITALIC.sub(lambda m: m.group(1), text)


# ---- answer profiles -----------------------------------------------------------------------

PROFILES: dict[str, dict[str, dict]] = {
    # Chat default: Markdown allowed, no emojis, hashtags or shouting.
    "markdown": {
        "structure": {"output": {"format": "markdown"},
                      "formatting": {"emojis": False, "hashtags": "none"}},
        "profile": {"formatting": {"exclamation_marks": "sparing"}},
    },
    # Plain text (seed: output format "reiner Text"): every rule, plus post-processing.
    "plain": {
        "structure": {"output": {"format": "plain text"},
                      "formatting": {"emojis": False, "bold": False, "hashtags": "none"}},
        "profile": {"grammar_and_syntax": {"dashes": "forbidden"},
                    "formatting": {"exclamation_marks": "sparing"}},
    },
}


def is_plain(profile: str) -> bool:
    cfg = PROFILES.get(profile, PROFILES["markdown"])
    fmt = _get(cfg["structure"], ("output", "format"), ("ausgabe", "format"))
    return str(fmt).strip().lower() in _PLAIN_FORMATS


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def apply_profile(text: str, profile: str,
                  extra: tuple[dict, dict] | None = None) -> tuple[str, dict]:
    """Post-process (plain-text profiles only), then check. Returns (text, feedback).
    `extra`: (structure, profile) configuration merged over the answer profile's — an
    author profile's rules (backend/chat/profile_rules.py `format_config`)."""
    cfg = PROFILES.get(profile, PROFILES["markdown"])
    structure, prof = cfg["structure"], cfg["profile"]
    if extra:
        structure, prof = _merge(structure, extra[0]), _merge(prof, extra[1])
    if is_plain(profile):
        text = strip_markdown(text)
    result = check_formatting(text, structure, prof)
    result["profile"] = profile if profile in PROFILES else "markdown"
    return text, result
