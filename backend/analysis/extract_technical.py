"""Technical documentation: configuration keys (dotted keys, ENV variables, CLI flags, with
the default value where the text states one), setup steps (numbered steps and imperative
sequences in installation/setup sections, with their commands) and the API surface
(endpoints with method, base paths, headers, HTTP status codes). One config-key or API item
per distinct value and document, anchored at its first mention."""
from __future__ import annotations

import re

from backend.analysis.common import content_units, item_from_units, make_item
from backend.analysis.source import Source, Unit
from backend.analysis.types import Item

# ---- config keys -----------------------------------------------------------------------

_ENV = re.compile(r"(?<![\w$./-])\$?(?P<k>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
_DOTTED = re.compile(r"(?<![\w/@.:-])(?P<k>[a-z][a-z0-9_]*(?:\.[a-z][a-zA-Z0-9_]*)+)\b(?![\w/@-]|\.\w)")
_FLAG = re.compile(r"(?<![\w-])(?P<k>--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)\b")
_NOT_KEY_END = {"yaml", "yml", "log", "crt", "key", "pem", "gz", "tar", "json", "toml", "ini", "conf",
                "cfg", "txt", "md", "pdf", "html", "htm", "example", "com", "de", "org", "net", "io",
                "local", "py", "sh", "exe", "zip", "csv", "xml", "env", "service", "d", "b", "h", "a",
                "e", "g", "ä", "s", "bsp", "v", "tls"}
_NOT_KEY_START = {"z", "e", "i", "u", "d", "bzw", "ca", "www", "mailto"}
_DEFAULT = re.compile(
    r"\b(?:standardmäßig|voreingestellt|Voreinstellung|Standardwert|Default(?:wert)?|default value|"
    r"defaults to|by default|default|Vorgabewert|Vorgabe|Standard)\b", re.I)
_DEFAULT_CHANGE = re.compile(r"^(?:[^.;]|\.(?=\S)){0,60}?\b(?:from|von)\s+(\S+)\s+(?:to|auf)\s+(?P<v>[\w./:-]*\w)", re.I)
_FILLER = {"ist", "is", "beträgt", "lautet", "of", "remains", "bleibt", "auf", "on", "at", "the", "der", "die",
           "das", "für", "for", "value", "wert", "port", "a", "an", "set", "to", "was", "be", "sind", "are",
           "liegt", "bei", "by", "als", "as", "has", "been", "wird", "mit", "with", ":", "=", "it", "es",
           "now", "nun", "jetzt", "still", "noch"}
_VALUE = re.compile(r'"[^"]{1,40}"|[\w./:+-]*\w')
_DEFAULT_HEAD = re.compile(r"^(?:default|standard|standardwert|voreinstellung|vorgabe)\b", re.I)


def _keys_in(text: str) -> list[tuple[int, int, str, str]]:
    out = []
    for m in _ENV.finditer(text):
        k = m.group("k")
        if len(k) >= 4 and not re.fullmatch(r"[A-Z]+_\d+", k):
            out.append((m.start("k"), m.end("k"), k, "env"))
    for m in _DOTTED.finditer(text):
        k = m.group("k")
        parts = k.split(".")
        if parts[-1].lower() in _NOT_KEY_END or parts[0] in _NOT_KEY_START or len(k) < 5:
            continue
        out.append((m.start("k"), m.end("k"), k, "key"))
    for m in _FLAG.finditer(text):
        out.append((m.start("k"), m.end("k"), m.group("k"), "flag"))
    return sorted(out)


def extract_config_keys(src: Source) -> list[Item]:
    found: dict[str, Item] = {}
    units = src.units
    for i, u in content_units(src):
        keys = _keys_in(u.text)
        default_col = _default_column(u) if u.kind == "row" else None
        defaults = _defaults(u.text, keys) if u.kind != "code" else {}
        if not keys:
            # a default without a key: "Die Voreinstellung ist 1.2." after the key's sentence
            if defaults.get(None) and i > 0 and units[i - 1].block == u.block:
                prev = _keys_in(units[i - 1].text)
                if prev:
                    k = prev[-1][2]
                    if k in found and not found[k].fields.get("default"):
                        found[k].fields["default"] = defaults[None]
                        found[k].signals = sorted(set(found[k].signals) | {"default_next_sentence"})
            continue
        for s, e, k, kind in keys:
            dflt = defaults.get(k)
            if default_col is not None and keys and keys[0][2] == k and default_col < len(u.cells):
                dflt = _clean_default(u.cells[default_col])
            it = found.get(k)
            if it is None:
                signals = [kind, "code" if u.kind == "code" else "text"]
                conf = 0.9 if kind in ("env", "flag") else 0.8
                if re.search(r"\b(?:Schlüssel|key|Umgebungsvariable|environment variable|Parameter|"
                             r"option|setting|Einstellung|flag|Schalter)\b", u.text, re.I):
                    signals.append("keyword")
                    conf += 0.05
                it = make_item(src, "config_keys", u.start + s, u.start + e, u.section, conf,
                               signals, key=k, type=kind, default=dflt, mentions=1)
                it.fields["context"] = u.text
                found[k] = it
            else:
                it.fields["mentions"] += 1
                if dflt and not it.fields.get("default"):
                    it.fields["default"] = dflt
    return sorted(found.values(), key=lambda it: it.start)


def _clean_default(cell: str) -> str | None:
    cell = cell.strip()
    if not cell or re.match(r"^(?:none|keine?r?|-|–|n/a)\b", cell, re.I):
        return None
    return cell.split(" (")[0]


def _default_column(u: Unit) -> int | None:
    for k, h in enumerate(u.header):
        if _DEFAULT_HEAD.match(h.strip()):
            return k
    return None


def _defaults(text: str, keys: list) -> dict:
    """{key: default} for the defaults stated in one unit; None -> a default naming no key
    ("Die Voreinstellung ist 1.2." after the sentence that names the key)."""
    out: dict = {}
    key_names = {k[2].lower() for k in keys}
    for m in _DEFAULT.finditer(text):
        tail = text[m.end():m.end() + 120]
        change = _DEFAULT_CHANGE.match(tail)
        v = change.group("v") if change else None
        if v is None:
            for tok in _VALUE.finditer(tail):
                word = tok.group(0)
                if tok.start() and re.search(r"[.;]\s", tail[:tok.start()]):
                    break  # the sentence ended
                if word.lower() in _FILLER or word.lower() in key_names:
                    continue
                v = word.strip('"')
                break
        if not v:
            continue
        named = [k for k in keys if m.end() <= k[0] <= m.end() + 40]
        before = [k for k in keys if k[1] <= m.start()]
        target = (named[0][2] if named and (not before or named[0][0] - m.end() < 8)
                  else before[-1][2] if before else keys[0][2] if keys else None)
        out.setdefault(target, v)
    return out


# ---- setup steps -------------------------------------------------------------------------

_SETUP_SECTION = re.compile(r"\b(?:install\w*|setup|set up|einrichtung|einrichten|inbetriebnahme|"
                            r"erste[rn]? start|getting started|quick ?start|deploy\w*|upgrade|"
                            r"schritt|steps|ablauf|procedure|vorgehen|"
                            r"migration|start)\b", re.I)
_STEP_MARKER = re.compile(r"^(?:\d{1,2}[.)]|Schritt\s+\d+|Step\s+\d+)", re.I)
_IMPERATIVE_DE = re.compile(r"\b(?:prüfen|starten|installieren|legen|richten|tragen|führen|öffnen|"
                            r"aktivieren|kopieren|erstellen|setzen|wählen|geben|laden|melden|"
                            r"entpacken|konfigurieren|stoppen|beenden|rufen)\s+Sie\b")
_IMPERATIVE_EN = re.compile(r"^(?:First,?\s+|Then,?\s+|Next,?\s+|Finally,?\s+|Afterwards,?\s+)?"
                            r"(?:Install|Run|Start|Create|Enter|Enable|Check|Open|Copy|Set|Add|Edit|"
                            r"Configure|Download|Restart|Stop|Log in|Promote|Drain|Confirm|Announce|"
                            r"Verify|Apply|Select|Choose|Deploy|Update|Upgrade|Mount|Execute)\b")
_SEQUENCE = re.compile(r"\b(?:zuerst|zunächst|anschließend|danach|dann|abschließend|nach der|"
                       r"first|then|next|afterwards|finally|once)\b", re.I)
_COMMAND = re.compile(r"(?:\bsudo\s+)?\b(?:systemctl|pip3?|apt(?:-get)?|dnf|yum|docker|kubectl|python3?|"
                      r"npm|curl|git|make|[a-z][a-z0-9-]*ctl|useradd|chmod|chown|mkdir|tail|grep|sed)"
                      r"\b[^,;\n]*?(?=(?:,\s|;\s|\s+(?:zeigt|führt|und|and|shows|applies)\b|\.\s|\.$|$))")


def extract_setup_steps(src: Source) -> list[Item]:
    items: list[Item] = []
    counters: dict[int, int] = {}
    units = src.units
    for i, u in content_units(src):
        if u.kind in ("code", "row"):
            continue
        label = src.sections[u.section].label
        t = u.text
        numbered = u.marker and _STEP_MARKER.match(u.marker) or _STEP_MARKER.match(t)
        in_setup = bool(_SETUP_SECTION.search(label))
        imperative = bool(_IMPERATIVE_DE.search(t) or _IMPERATIVE_EN.match(_body(t)))
        signals = []
        conf = 0.0
        if numbered and (imperative or in_setup):
            signals.append("numbered_step")
            conf = 0.9 if imperative else 0.75
        elif in_setup and imperative and u.kind == "sentence" and not numbered and (
                _SEQUENCE.search(t) or _COMMAND.search(t)):
            signals.append("imperative_sequence")
            conf = 0.75
        if not conf:
            continue
        if in_setup:
            signals.append("setup_section")
        n = counters.get(u.section, 0) + 1
        counters[u.section] = n
        step = int(re.match(r"\d+", u.marker).group(0)) if u.marker and u.marker[0].isdigit() else n
        cmds = [c.group(0).strip() for c in _COMMAND.finditer(t)]
        j = i + 1  # commands in the code lines right after the step
        while j < len(units) and units[j].kind == "code" and units[j].section == u.section:
            if not units[j].text.lstrip().startswith("#"):
                cmds.append(units[j].text.strip())
            j += 1
        items.append(item_from_units(src, "setup_steps", i, i, conf, signals, step=step,
                                     instruction=_body(t), commands=cmds))
    return items


def _body(t: str) -> str:
    return re.sub(r"^\s*(?:\d{1,2}[.)]|[-•*])\s+", "", t)


# ---- API surface ---------------------------------------------------------------------------

_METHOD_PATH = re.compile(r"\b(?P<m>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?P<p>/[\w{}/.:-]*[\w}])")
_CURL = re.compile(r"\bcurl\b(?P<opts>[^\n]*?)\s(?:-X\s*(?P<m>[A-Z]+)\s+)?https?://[^/\s]+(?P<p>/[\w{}/.-]*[\w}])")
_CURL_X = re.compile(r"-X\s*(GET|POST|PUT|PATCH|DELETE)")
_BASE = re.compile(r"\b(?:base path|path|Pfad|under|unter|prefix)\s+(?P<p>/[\w{}.-]+(?:/[\w{}.-]+)?)\b(?!/)")
_STATUS = re.compile(r"\b(?:HTTP(?:[ -]status(?: code)?)?|status(?: code)?|Statuscode|answers with|responds with|"
                     r"antwortet\b[^.]{0,30}\bmit|returns? (?:HTTP )?status)\s*(?P<c>[1-5]\d{2})\b", re.I)
_HEADER = re.compile(r"\b(?P<h>X-[A-Za-z][\w-]+|Authorization|Retry-After|Content-Type|Accept|"
                     r"If-None-Match|ETag)\s+header\b|\bheader\s+(?P<h2>X-[A-Za-z][\w-]+|Authorization|"
                     r"Retry-After)\b|\bHeader\s+(?P<h3>X-[A-Za-z][\w-]+)")
_STATUS_HEAD = re.compile(r"^(?:http status|status|status code|statuscode|code|http)\b", re.I)


def extract_api_surface(src: Source) -> list[Item]:
    found: dict[tuple[str, str], Item] = {}

    def add(kind: str, value: str, u: Unit, s: int, e: int, conf: float, signal: str, **extra):
        key = (kind, value)
        if key in found:
            found[key].fields["mentions"] += 1
            return
        found[key] = make_item(src, "api_surface", u.start + s, u.start + e, u.section, conf,
                               [signal], type=kind, value=value, mentions=1, **extra)

    for _i, u in content_units(src):
        t = u.text
        for m in _METHOD_PATH.finditer(t):
            add("endpoint", f"{m.group('m')} {m.group('p')}", u, m.start(), m.end(), 0.95,
                "method_path", method=m.group("m"), path=m.group("p"))
        for m in _CURL.finditer(t):
            x = _CURL_X.search(m.group(0))
            method = x.group(1) if x else "GET"
            add("endpoint", f"{method} {m.group('p')}", u, m.start(), m.end(), 0.85, "curl",
                method=method, path=m.group("p"))
        for m in _BASE.finditer(t):
            p = m.group("p")
            if re.match(r"^/(?:api|v\d)", p):
                add("base_path", p, u, m.start("p"), m.end("p"), 0.7, "path_phrase")
        for m in _STATUS.finditer(t):
            add("status_code", m.group("c"), u, m.start(), m.end(), 0.9, "status_phrase")
        for m in _HEADER.finditer(t):
            h = m.group("h") or m.group("h2") or m.group("h3")
            add("header", h, u, m.start(), m.end(), 0.8, "header_phrase")
        if u.kind == "row" and u.header and _STATUS_HEAD.match(u.header[0].strip()) \
                and re.fullmatch(r"[1-5]\d{2}", u.cells[0].strip()):
            add("status_code", u.cells[0].strip(), u, 0, len(t), 0.95, "status_table",
                meaning=" | ".join(u.cells[1:]))
    return sorted(found.values(), key=lambda it: it.start)
