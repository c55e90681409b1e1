"""The document-type registry: types with label, category, prompt hint, heuristic signals,
priority and default processing profile. Kept in the database (`document_types`), editable
on the admin page "Document types"; the built-in types below are inserted when missing
(never overwriting an edit), so a new release can add types without a migration.

`signals` (all optional; weights in backend/ingest/classify.py, WEIGHTS):
  extensions   [".py", ...]           file extension (lower case)
  names        [regex, ...]           file name or repository path (case-insensitive)
  title        [regex, ...]           the document's title
  text         [regex, ...]           the first 4,000 characters (each pattern counts once)
  structure    {"agenda_item": 2}     at least this many sections of the kind
  traits       ["has_api_endpoints"]  traits the text shows
  formats      ["html"]               extracted format
  source_kinds ["crawl"]              how it came in (file, upload, crawl, sync, git)"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import select

from backend.errors import ConfigError, NotFound
from backend.ingest.profiles import PROFILES
from backend.store.doctype_models import DocumentType

SIGNAL_KEYS = ("extensions", "names", "title", "text", "structure", "traits", "formats",
               "source_kinds")


@dataclass(frozen=True)
class TypeDef:
    name: str
    label: str
    category: str
    description: str
    prompt_hint: str
    default_profile: str
    priority: int
    signals: dict = field(default_factory=dict)
    enabled: bool = True
    builtin: bool = True


def _t(name, label, category, profile, priority, description, hint, **signals) -> TypeDef:
    return TypeDef(name, label, category, description, hint, profile, priority, signals)


BUILTIN: tuple[TypeDef, ...] = (
    _t("generic_text", "Generic text", "general", "generic_text", 0,
       "Text that fits no other type.", "Use only when no other type fits."),
    _t("web_article", "Web article", "web", "web_structured", 10,
       "A news item, blog post or article page from the web.",
       "Prose article with a headline, often dated, published on a web site.",
       formats=["html"], source_kinds=["crawl"],
       text=[r"(?i)\b(posted|published|veröffentlicht|autor|author)\b.{0,40}\b20\d\d\b",
             r"(?i)\b(read more|weiterlesen|share this|teilen)\b"]),
    _t("documentation_website", "Documentation page", "technical", "web_structured", 15,
       "A page of a product's online documentation.",
       "Docs-site page: navigation, how-to sections, configuration, examples.",
       formats=["html"], title=[r"(?i)\b(documentation|dokumentation|docs)\b"],
       traits=["has_code_blocks"]),
    _t("book", "Book", "general", "book_hierarchical", 20,
       "A book or long monograph with chapters.",
       "Chapters (Kapitel/Chapter), preface, table of contents, many pages.",
       text=[r"(?i)\b(vorwort|preface|inhaltsverzeichnis|table of contents|isbn)\b",
             r"(?m)^(Kapitel|Chapter)\s+\d+"],
       structure={"chapter": 6}),
    _t("scientific_paper", "Scientific paper", "research", "book_hierarchical", 40,
       "A research paper with abstract, method, results and references.",
       "Abstract, Introduction, Method, Results, Discussion, References; citations.",
       text=[r"(?im)^\s*(abstract|zusammenfassung|kurzfassung)\s*$",
             r"(?im)^\s*(\d+\.?\s+)?(references|literatur(verzeichnis)?|bibliography)\s*$",
             r"(?i)\b(et al\.|doi:|arxiv)", r"(?im)^\s*(\d+\.?\s+)?(methods?|methodik|results|ergebnisse|discussion|diskussion)\s*$"],
       traits=["has_references"]),
    _t("technical_report", "Technical report", "technical", "generic_text", 20,
       "A report on an investigation, test, study or evaluation.",
       "Findings, measurements, evaluation, conclusions; not minutes, not a manual.",
       title=[r"(?i)\b(report|bericht|studie|study|gutachten|evaluation|analyse|analysis)\b"],
       text=[r"(?i)\b(findings|ergebnisse|conclusions?|fazit|empfehlungen|recommendations)\b",
             r"(?i)\b(messung|measurement|prüfbericht|test report|untersuchung)\b"]),
    _t("meeting_minutes", "Meeting minutes", "operations", "meeting_structured", 60,
       "Minutes of a meeting: attendees, agenda items, decisions, action items.",
       "Protokoll/Niederschrift/Minutes; TOP or agenda items; Beschluss/decision; attendees.",
       names=[r"(?i)(protokoll|minutes|niederschrift|meeting)"],
       title=[r"(?i)\b(protokoll|niederschrift|minutes|sitzungsbericht|meeting notes)\b"],
       text=[r"(?i)\b(anwesend|attendees|teilnehmer(innen)?|present)\b",
             r"(?i)\b(tagesordnung|agenda)\b", r"(?i)\b(beschluss|decision|resolved)\b",
             r"(?i)\b(vorsitz|chair|protokollführ|minutes taken)"],
       structure={"agenda_item": 2}, traits=["has_agenda"]),
    _t("policy", "Policy / rules", "legal", "policy_legal", 55,
       "An internal policy, guideline, terms of use or regulation with numbered rules.",
       "Richtlinie/Ordnung/Policy; § or numbered rules; scope (Geltungsbereich); in force.",
       names=[r"(?i)(richtlinie|policy|ordnung|satzung|regulation|guideline)"],
       title=[r"(?i)(richtlinie|policy|ordnung\b|satzung|verordnung|regulation|guideline|"
              r"nutzungsbedingungen|terms of use)"],
       text=[r"(?i)\b(geltungsbereich|scope|inkrafttreten|comes into force|in force)\b",
             r"(?i)\b(verantwortlich|responsib|must|muss|müssen|shall|is prohibited|untersagt)\b",
             r"(?i)\b(verstöße|violations?|compliance|sanktion)"],
       structure={"paragraph": 3}),
    _t("contract", "Contract", "legal", "policy_legal", 65,
       "An agreement between parties: contract, service agreement, licence.",
       "Vertrag/Vereinbarung/Agreement between named parties; term, termination, liability.",
       names=[r"(?i)(vertrag|vereinbarung|contract|agreement|\bsla\b|licen[cs]e)"],
       title=[r"(?i)\b(vertrag|vereinbarung|contract|agreement|auftragsverarbeitung)\b"],
       text=[r"(?i)\b(zwischen|between)\b.{0,200}\b(und|and)\b.{0,200}\b(auftraggeber|auftragnehmer|"
             r"vertragspartner|client|contractor|supplier|customer|lizenzgeber|licensor)",
             r"(?i)\b(kündigung|termination|laufzeit|term of the agreement)\b",
             r"(?i)\b(haftung|liability|gewährleistung|warranty)\b",
             r"(?i)\b(unterschrift|signature|signed)\b"]),
    _t("code_documentation", "Code documentation", "code", "code_structured", 45,
       "README, developer guide, ADR or contributing guide of a software project.",
       "README/ADR/CONTRIBUTING; installation, usage, configuration, examples in code blocks.",
       names=[r"(?i)(^|/)(readme|contributing|adr[-_ ]?\d*|architecture|development|install)[^/]*$",
              r"(?i)(^|/)docs?/"],
       text=[r"(?im)^#+\s*(installation|usage|getting started|quick ?start|erste schritte|"
             r"configuration|konfiguration|contributing|development)\b",
             r"(?i)\b(pip install|npm install|go get|cargo|docker run|git clone|make )"],
       traits=["has_code_blocks"]),
    _t("source_code_file", "Source code", "code", "code_structured", 80,
       "A source file: functions, classes, modules.",
       "Program code in a programming language.",
       extensions=[".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".java",
                   ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".kt",
                   ".swift", ".scala", ".sh", ".bash", ".ps1", ".sql", ".r", ".lua", ".pl",
                   ".dart", ".vue", ".css", ".scss", ".proto", ".gradle", ".tf"],
       names=[r"(?i)(^|/)(dockerfile|makefile|jenkinsfile|containerfile)$"]),
    _t("api_reference", "API reference", "code", "code_structured", 50,
       "Reference of an API: endpoints, methods, parameters, responses.",
       "HTTP methods and paths (GET /api/...), request/response examples, status codes.",
       names=[r"(?i)(api|openapi|swagger|endpoints?|rest)"],
       title=[r"(?i)\b(api|endpoints?|rest|openapi|schnittstelle)\b"],
       text=[r"\b(GET|POST|PUT|PATCH|DELETE)\s+/", r"(?i)\b(status code|statuscode|http \d{3}|"
             r"response|request body|bearer|access token)\b", r"(?i)\bcurl\s"],
       traits=["has_api_endpoints"]),
    _t("runbook_or_ops_doc", "Runbook / operations", "operations", "code_structured", 55,
       "Runbook, playbook or operating procedure: steps to run or restore a system.",
       "Step-by-step procedure for operators: when to use, steps, commands, rollback, escalation.",
       names=[r"(?i)(runbook|playbook|sop|ops|betriebsanweisung|notfall)"],
       title=[r"(?i)\b(runbook|playbook|operating procedure|betriebsanweisung|notfallplan|"
              r"arbeitsanweisung)\b"],
       text=[r"(?i)\b(rollback|failover|escalat|eskalation|on-call|bereitschaft)\b",
             r"(?i)\b(step|schritt)\s*\d", r"(?i)\b(systemctl|kubectl|sudo|restart)\b"]),
    _t("requirement_spec", "Requirements specification", "technical", "generic_text", 50,
       "Requirements or specification: Lastenheft, Pflichtenheft, SRS, user stories.",
       "Numbered requirements (REQ-1, A-12) with must/shall/soll, acceptance criteria.",
       names=[r"(?i)(lastenheft|pflichtenheft|requirements?|anforderung|spec(ification)?|srs)"],
       title=[r"(?i)\b(lastenheft|pflichtenheft|requirements?|anforderungen|specification|"
              r"spezifikation)\b"],
       text=[r"\b(REQ|FR|NFR|AF|ANF)[-_ ]?\d+", r"(?i)\b(shall|muss|soll|must)\b",
             r"(?i)\b(akzeptanzkriterien|acceptance criteria|user stor)"]),
    _t("pdf_scanned", "Scanned document", "general", "ocr_resilient", 90,
       "A document read by OCR (a scan or a photo): its text may contain recognition errors.",
       "Mostly OCR'd pages; say what the content is as a secondary type.",
       traits=["is_ocr"]),
    _t("manual", "Manual / handbook", "technical", "book_hierarchical", 45,
       "User, installation or operations manual of a product or plant.",
       "Handbuch/Manual/Guide: installation, configuration, operation, troubleshooting chapters.",
       names=[r"(?i)(handbuch|manual|guide|anleitung|bedienungsanleitung)"],
       title=[r"(?i)(handbuch|manual|user guide|anleitung|benutzerhandbuch|installation guide)"],
       text=[r"(?i)\b(installation|konfiguration|configuration|bedienung|operation)\b",
             r"(?i)\b(fehlerbehebung|troubleshooting|wartung|maintenance|störung)\b",
             r"(?i)\b(dieses handbuch|this manual|this guide)\b"],
       structure={"section": 3}),
    _t("incident_report", "Incident report", "operations", "generic_text", 70,
       "Report of an incident or outage: timeline, impact, root cause, actions.",
       "Incident/Störung/Postmortem: severity, timeline, impact, root cause, corrective actions.",
       names=[r"(?i)(incident|inc-\d+|postmortem|post-mortem|störungsbericht|stoerung)"],
       title=[r"(?i)\b(incident|post-?mortem|störungsbericht|störungsmeldung|outage)\b"],
       text=[r"(?i)\b(root cause|ursache|ursachenanalyse)\b", r"(?i)\b(timeline|zeitlicher ablauf)\b",
             r"(?i)\b(severity|schweregrad|impact|auswirkung)\b",
             r"(?i)\b(lessons learned|corrective actions?|maßnahmen)\b"]),
    _t("financial_report", "Financial / annual report", "finance", "table_structured", 60,
       "Annual report, financial statement, business report with key figures.",
       "Geschäftsbericht/Jahresabschluss/Annual report: revenue, EBIT, balance sheet, outlook.",
       names=[r"(?i)(annual|geschäftsbericht|geschaeftsbericht|jahresabschluss|finanz|quarterly)"],
       title=[r"(?i)\b(annual report|geschäftsbericht|jahresbericht|jahresabschluss|financial "
              r"statement|quartalsbericht|quarterly report)\b"],
       text=[r"(?i)\b(revenue|umsatz(erlöse)?|ebit|ebitda|net income|jahresüberschuss|"
             r"bilanz|balance sheet|investments?|investitionen)\b",
             r"(?i)\b(mio\.?|million|millionen)\s*(eur|€|euro)",
             r"(?i)\b(outlook|ausblick|fiscal year|geschäftsjahr)\b"]),
    _t("press_release", "Press release", "communication", "generic_text", 75,
       "A press release or public announcement.",
       "PRESSEMITTEILUNG/Press release; place and date line; quotes; press contact.",
       names=[r"(?i)(pressemitteilung|press[-_ ]?release|presseinformation)"],
       title=[r"(?i)\b(pressemitteilung|press release|presseinformation)\b"],
       text=[r"(?i)^\s*(pressemitteilung|press release|presseinformation|medieninformation)\b",
             r"(?i)\b(pressekontakt|press contact|media contact|pressestelle)\b",
             r"(?m)^[A-ZÄÖÜ][\wäöüß\- ]+,\s+(\d{1,2}\.\s+\w+|\w+\s+\d{1,2},)\s+20\d\d\s*[.–-]"]),
    _t("faq", "FAQ", "communication", "web_structured", 50,
       "Frequently asked questions with answers.",
       "Question headings followed by their answers (FAQ, Häufige Fragen).",
       names=[r"(?i)(faq|haeufige|häufige|fragen)"],
       title=[r"(?i)\b(faq|häufige fragen|frequently asked|fragen und antworten|q ?& ?a)\b"],
       text=[r"(?m)^[^\n]{10,160}\?\s*$"]),
    _t("release_notes", "Release notes / changelog", "code", "code_structured", 60,
       "Release notes or changelog: changes per version.",
       "Versions with dates and lists of new features, changes, fixes.",
       names=[r"(?i)(release[-_ ]?notes|changelog|changes|news|history)"],
       title=[r"(?i)\b(release notes|changelog|versionshinweise|änderungsprotokoll|what's new)\b"],
       text=[r"(?im)^#*\s*(version\s*)?v?\d+\.\d+(\.\d+)?\b.{0,40}$",
             r"(?i)\b(new features|neue funktionen|bug ?fixes|fixed|behoben|breaking changes?|"
             r"deprecated|known issues)\b"]),
    _t("config_file", "Configuration file", "code", "code_structured", 70,
       "A configuration file (YAML, JSON, TOML, INI, properties).",
       "Keys and values that configure a program.",
       extensions=[".yaml", ".yml", ".json", ".toml", ".ini", ".cfg", ".conf", ".properties"]),
    _t("data_table", "Data table", "data", "table_structured", 70,
       "Tabular data: CSV/TSV exports, lists of records.",
       "Rows and columns of data.",
       extensions=[".csv", ".tsv"]),
    _t("information_sheet", "Information sheet", "communication", "generic_text", 35,
       "Leaflet, fact sheet or customer information (Merkblatt, Infoblatt).",
       "Short guidance for customers or staff: steps, conditions, contact.",
       names=[r"(?i)(merkblatt|infoblatt|informationsblatt|leaflet|fact[-_ ]?sheet|flyer)"],
       title=[r"(?i)\b(merkblatt|infoblatt|informationsblatt|kundeninformation|leaflet|"
              r"fact sheet|information sheet)\b"],
       text=[r"(?i)\b(ansprechpartner|contact us|kontakt|so erreichen sie uns)\b",
             r"(?i)\b(schritt \d|step \d|voraussetzungen|requirements)\b"]),
)
BUILTIN_NAMES = tuple(t.name for t in BUILTIN)


# ---- validation ---------------------------------------------------------------------------


def validate_signals(signals: dict, name: str = "") -> dict:
    """The signals as stored, or ConfigError naming the bad key or pattern."""
    if not isinstance(signals, dict):
        raise ConfigError(f"{name}: signals must be a mapping")
    out: dict = {}
    for key, value in signals.items():
        if key not in SIGNAL_KEYS:
            raise ConfigError(f"{name}: unknown signal '{key}' (known: {', '.join(SIGNAL_KEYS)})")
        if key == "structure":
            if not isinstance(value, dict) or not all(
                    isinstance(k, str) and isinstance(v, int) and v >= 1 for k, v in value.items()):
                raise ConfigError(f"{name}: structure must map section kinds to counts >= 1")
            out[key] = dict(value)
            continue
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(f"{name}: signal '{key}' must be a list of strings")
        if key in ("names", "title", "text"):
            for pattern in value:
                try:
                    re.compile(pattern)
                except re.error as e:
                    raise ConfigError(f"{name}: signal '{key}' has a bad pattern {pattern!r} "
                                      f"({e})") from None
        out[key] = list(value)
    return out


def _check(name: str, profile: str, label: str) -> None:
    if not re.fullmatch(r"[a-z][a-z0-9_]{1,48}", name or ""):
        raise ConfigError(f"type name {name!r}: lower-case letters, digits and _, 2-49 characters")
    if profile not in PROFILES:
        raise ConfigError(f"{name}: unknown processing profile '{profile}' "
                          f"(known: {', '.join(PROFILES)})")
    if not label.strip():
        raise ConfigError(f"{name}: the label must not be empty")


# ---- database -----------------------------------------------------------------------------


def ensure_builtins(s) -> int:
    """Insert the built-in types that are missing (edits of existing rows are kept)."""
    have = set(s.scalars(select(DocumentType.name)))
    added = 0
    for t in BUILTIN:
        if t.name not in have:
            s.add(DocumentType(name=t.name, label=t.label, category=t.category,
                               description=t.description, prompt_hint=t.prompt_hint,
                               default_profile=t.default_profile, priority=t.priority,
                               signals=dict(t.signals), enabled=True, builtin=True))
            added += 1
    if added:
        s.flush()
    return added


def _def(row: DocumentType) -> TypeDef:
    return TypeDef(row.name, row.label, row.category, row.description, row.prompt_hint,
                   row.default_profile, row.priority, dict(row.signals or {}), row.enabled,
                   row.builtin)


def load(store) -> list[TypeDef]:
    """Every registered type (built-ins inserted first when missing), by priority."""
    with store.session() as s:
        ensure_builtins(s)
        rows = s.scalars(select(DocumentType).order_by(DocumentType.priority.desc(),
                                                       DocumentType.name)).all()
        return [_def(r) for r in rows]


def save(store, t: TypeDef) -> TypeDef:
    """Create or update a type (validated). Built-ins can be edited and disabled, not renamed."""
    _check(t.name, t.default_profile, t.label)
    signals = validate_signals(t.signals, t.name)
    if not -1000 <= int(t.priority) <= 1000:
        raise ConfigError(f"{t.name}: priority must be between -1000 and 1000")
    if t.name == "generic_text" and not t.enabled:
        raise ConfigError("generic_text is the fallback type and cannot be disabled")
    with store.session() as s:
        ensure_builtins(s)
        row = s.scalar(select(DocumentType).where(DocumentType.name == t.name))
        if row is None:
            row = DocumentType(name=t.name, builtin=False)
            s.add(row)
        row.label, row.category, row.description = t.label.strip(), t.category.strip(), t.description
        row.prompt_hint, row.default_profile = t.prompt_hint, t.default_profile
        row.priority, row.signals, row.enabled = int(t.priority), signals, bool(t.enabled)
        s.flush()
        return _def(row)


def delete(store, name: str) -> None:
    """Remove a type added by a user (built-ins can only be disabled)."""
    with store.session() as s:
        row = s.scalar(select(DocumentType).where(DocumentType.name == name))
        if row is None:
            raise NotFound(f"document type '{name}' not found")
        if row.builtin:
            raise ConfigError(f"{name} is built in; disable it instead of deleting it")
        s.delete(row)
