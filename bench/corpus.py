"""A deterministic generated corpus of German and English prose for the ingestion benchmark.

Documents are minutes (TOP items, decisions), technical manuals (numbered chapters, config
keys), policies (§ paragraphs) and reports, as Markdown or plain text. Sentences come from
templates whose slots are filled from word lists with a seeded RNG, so every text differs
while the same seed always yields the same bytes."""
from __future__ import annotations

import random
from pathlib import Path

# ---- vocabulary --------------------------------------------------------------------------

EN = {
    "org": ["the utility", "the steering committee", "the operations team", "the IT department",
            "the works council", "the project office", "the data protection officer",
            "the network control centre", "the procurement unit", "the customer service desk",
            "the security team", "the finance department", "the board", "the site management"],
    "thing": ["the pumping station", "the customer portal", "the billing system", "the gateway",
              "the backup cluster", "the water tower", "the district heating network",
              "the metering service", "the identity provider", "the release pipeline",
              "the archive server", "the SCADA interface", "the load balancer",
              "the reservoir at Eichberg", "the invoice workflow", "the monitoring stack"],
    "verb": ["reviewed", "approved", "postponed", "rejected", "discussed", "audited",
             "commissioned", "replaced", "documented", "migrated", "tested", "renewed",
             "evaluated", "escalated", "budgeted", "decommissioned"],
    "adj": ["critical", "routine", "unexpected", "costly", "overdue", "preliminary",
            "mandatory", "temporary", "redundant", "encrypted", "scheduled", "manual",
            "automated", "regional", "quarterly", "independent"],
    "noun": ["maintenance window", "risk assessment", "tender", "failover test",
             "price adjustment", "access review", "incident report", "capacity plan",
             "retention period", "service level", "audit finding", "migration plan",
             "training programme", "change request", "emergency drill", "energy report"],
    "person": ["Ms Fischer", "Mr Okafor", "Dr Lindqvist", "Ms Novak", "Mr Brennan",
               "Ms Castillo", "Mr Haddad", "Dr Moreau", "Ms Takahashi", "Mr Petrov"],
    "month": ["January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"],
    "topic": ["Budget", "Network Operations", "Security", "Customer Service", "Procurement",
              "Data Protection", "Maintenance", "Billing", "Infrastructure", "Reporting",
              "Energy Efficiency", "Staffing", "Emergency Planning", "Compliance"],
}

DE = {
    "org": ["der Werkausschuss", "die Geschäftsführung", "der Betriebsrat", "die IT-Abteilung",
            "das Projektbüro", "die Datenschutzbeauftragte", "die Netzleitstelle",
            "der Einkauf", "der Kundenservice", "das Sicherheitsteam", "die Kämmerei",
            "der Aufsichtsrat", "die Bauleitung", "die Stadtverwaltung"],
    "thing": ["das Pumpwerk", "das Kundenportal", "das Abrechnungssystem", "das Gateway",
              "der Hochbehälter Eichberg", "das Fernwärmenetz", "der Messstellenbetrieb",
              "die Leitwarte", "das Archivsystem", "die Kläranlage", "der Wasserturm",
              "die Schnittstelle zum Netzbetreiber", "das Rechenzentrum", "die Trinkwasserleitung",
              "das Störungsmeldesystem", "die Zählerfernauslesung"],
    "verb": ["geprüft", "genehmigt", "vertagt", "abgelehnt", "beraten", "beauftragt",
             "ersetzt", "dokumentiert", "migriert", "getestet", "verlängert", "bewertet",
             "eskaliert", "ausgeschrieben", "stillgelegt", "saniert"],
    "adj": ["dringende", "routinemäßige", "unerwartete", "kostspielige", "überfällige",
            "vorläufige", "verpflichtende", "befristete", "redundante", "verschlüsselte",
            "geplante", "manuelle", "automatisierte", "regionale", "vierteljährliche",
            "unabhängige"],
    "noun": ["Wartung", "Risikobewertung", "Ausschreibung", "Umschaltprüfung",
             "Preisanpassung", "Zugriffsprüfung", "Störungsmeldung", "Kapazitätsplanung",
             "Aufbewahrungsfrist", "Dienstgütevereinbarung", "Prüffeststellung",
             "Migrationsplanung", "Schulungsmaßnahme", "Änderungsanfrage", "Notfallübung",
             "Energiebilanz"],
    "person": ["Frau Fischer", "Herr Okafor", "Dr. Lindqvist", "Frau Novak", "Herr Brenner",
               "Frau Castillo", "Herr Haddad", "Dr. Moreau", "Frau Yıldız", "Herr Petrow"],
    "month": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
              "September", "Oktober", "November", "Dezember"],
    "topic": ["Haushalt", "Netzbetrieb", "Informationssicherheit", "Kundenservice", "Vergabe",
              "Datenschutz", "Instandhaltung", "Abrechnung", "Infrastruktur", "Berichtswesen",
              "Energieeffizienz", "Personal", "Notfallplanung", "Compliance"],
}

EN_SENTENCES = [
    "{Org} {verb} the {adj} {noun} for {thing} on {day} {month} {year}.",
    "According to {person}, {thing} needs a {adj} {noun} before the end of {month}.",
    "The {noun} was {verb} after {n} findings had been recorded by {org}.",
    "{Person} reported that {thing} ran for {n} days without a {adj} interruption.",
    "Costs of {money} EUR are expected for the {noun}; {org} will decide in {month}.",
    "If {thing} fails, {org} switches to the {adj} {noun} within {n} minutes.",
    "The {adj} {noun} covers {n} sites and is reviewed every {m} months.",
    "{Org} asked {person} to prepare a {adj} {noun} for the next meeting.",
    "Set `{key}` to {n} in the configuration file; the default of {m} is too low for {thing}.",
    "Measured availability of {thing} was {pct} percent in {month} {year}.",
    "The {noun} for {thing} is {verb} by {org}, and the result is filed in the archive.",
    "Questions about the {noun} go to {person}, who coordinates with {org}.",
    "During the {adj} {noun}, {n} of {k} checks passed and the rest were {verb}.",
    "A {adj} {noun} is required whenever {thing} is changed or {verb}.",
    "{Org} notes that the {noun} of {year} was {verb} ahead of schedule.",
]

DE_SENTENCES = [
    "{Org} hat die {adj} {noun} für {thing} am {day}. {month} {year} {verb}.",
    "Nach Auskunft von {person} benötigt {thing} bis Ende {month} eine {adj} {noun}.",
    "Die {noun} wurde {verb}, nachdem {org} {n} Feststellungen erfasst hatte.",
    "{Person} berichtete, dass {thing} {n} Tage ohne {adj} Unterbrechung lief.",
    "Für die {noun} werden Kosten von {money} Euro erwartet; {org} entscheidet im {month}.",
    "Fällt {thing} aus, schaltet {org} innerhalb von {n} Minuten auf die {adj} {noun} um.",
    "Die {adj} {noun} umfasst {n} Standorte und wird alle {m} Monate überprüft.",
    "{Org} bat {person}, zur nächsten Sitzung eine {adj} {noun} vorzulegen.",
    "In der Konfigurationsdatei ist `{key}` auf {n} zu setzen; der Standardwert {m} reicht "
    "für {thing} nicht aus.",
    "Die gemessene Verfügbarkeit von {thing} lag im {month} {year} bei {pct} Prozent.",
    "Die {noun} für {thing} wird von {org} {verb} und das Ergebnis im Archiv abgelegt.",
    "Fragen zur {noun} beantwortet {person}, die sich mit {org} abstimmt.",
    "Bei der {adj} {noun} waren {n} von {k} Prüfungen erfolgreich, die übrigen wurden {verb}.",
    "Eine {adj} {noun} ist erforderlich, sobald {thing} geändert oder {verb} wird.",
    "{Org} stellt fest, dass die {noun} des Jahres {year} vorzeitig {verb} wurde.",
]

KEY_PARTS = ["gateway", "portal", "billing", "backup", "scada", "meter", "auth", "archive",
             "timeout", "retries", "pool_size", "interval_s", "max_connections", "threshold",
             "batch_size", "log_level", "cache_ttl", "queue_depth"]

KINDS = ("minutes", "manual", "policy", "report")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _sentence(rng: random.Random, lang: str) -> str:
    voc = DE if lang == "de" else EN
    tpl = rng.choice(DE_SENTENCES if lang == "de" else EN_SENTENCES)
    org, person = rng.choice(voc["org"]), rng.choice(voc["person"])
    vals = {
        "org": org, "Org": _cap(org), "person": person, "Person": person,
        "thing": rng.choice(voc["thing"]), "verb": rng.choice(voc["verb"]),
        "adj": rng.choice(voc["adj"]), "noun": rng.choice(voc["noun"]),
        "month": rng.choice(voc["month"]), "day": rng.randint(1, 28),
        "year": rng.randint(2015, 2026), "n": rng.randint(2, 480), "m": rng.randint(2, 60),
        "k": 480 + rng.randint(1, 400),
        "pct": f"{rng.uniform(90, 99.99):.2f}".replace(".", "," if lang == "de" else "."),
        "money": f"{rng.randint(1, 990) * 1000:,}".replace(",", "." if lang == "de" else ","),
        "key": ".".join(rng.sample(KEY_PARTS, 2)),
    }
    return tpl.format(**vals)


def _paragraph(rng: random.Random, lang: str) -> str:
    return " ".join(_sentence(rng, lang) for _ in range(rng.randint(3, 7)))


def _heading(rng: random.Random, lang: str, kind: str, i: int, md: bool) -> str:
    topic = rng.choice((DE if lang == "de" else EN)["topic"])
    if kind == "minutes":
        title = f"TOP {i}: {topic}"
    elif kind == "policy":
        title = f"§ {i} {topic}"
    elif kind == "manual":
        title = f"{i} {topic}"
    else:
        title = topic + (" – Abschnitt " if lang == "de" else " – part ") + str(i)
    return f"## {title}" if md else title


def _sub_heading(rng: random.Random, lang: str, kind: str, i: int, j: int, md: bool) -> str:
    topic = rng.choice((DE if lang == "de" else EN)["noun"])
    title = f"{i}.{j} {_cap(topic)}" if kind == "manual" else _cap(topic)
    return f"### {title}" if md else title


def make_document(seed: int, target_chars: int) -> tuple[str, str]:
    """(file name, text) of one generated document of about `target_chars` characters."""
    rng = random.Random(seed)
    lang = "de" if seed % 2 == 0 else "en"
    kind = KINDS[(seed // 2) % len(KINDS)]
    md = seed % 3 != 0
    voc = DE if lang == "de" else EN
    title = {
        ("minutes", "de"): "Protokoll der Sitzung des Werkausschusses",
        ("minutes", "en"): "Minutes of the steering committee meeting",
        ("manual", "de"): "Betriebshandbuch",
        ("manual", "en"): "Operations manual",
        ("policy", "de"): "Richtlinie",
        ("policy", "en"): "Policy",
        ("report", "de"): "Jahresbericht",
        ("report", "en"): "Annual report",
    }[kind, lang] + f" {rng.choice(voc['topic'])} {rng.randint(2015, 2026)}-{seed:04d}"
    parts = [f"# {title}" if md else title, _paragraph(rng, lang)]
    size = sum(map(len, parts))
    i = 0
    while size < target_chars:
        i += 1
        block = [_heading(rng, lang, kind, i, md)]
        for _ in range(rng.randint(2, 5)):
            block.append(_paragraph(rng, lang))
        if kind == "manual" and rng.random() < 0.6:
            for j in range(1, rng.randint(2, 3) + 1):
                block.append(_sub_heading(rng, lang, kind, i, j, md))
                block += [_paragraph(rng, lang) for _ in range(rng.randint(1, 3))]
        if kind == "minutes":
            block.append(("Beschluss: " if lang == "de" else "Decision: ") + _sentence(rng, lang))
        parts += block
        size += sum(map(len, block)) + 2 * len(block)
    ext = ".md" if md else ".txt"
    return f"{kind}_{lang}_{seed:04d}{ext}", "\n\n".join(parts) + "\n"


def write_corpus(dest: Path, min_chunks: int, chunks_per_file: int = 100, *,
                 count_chunks, progress=None) -> tuple[list[Path], int]:
    """Write documents to `dest` until `count_chunks(path)` adds up to at least `min_chunks`.
    Returns (files, expected chunk count)."""
    dest.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    total = 0
    seed = 0
    target_chars = chunks_per_file * 640  # ~640 new characters per 800-char chunk
    while total < min_chunks:
        name, text = make_document(seed, target_chars)
        path = dest / name
        path.write_text(text, encoding="utf-8")
        n = count_chunks(path)
        files.append(path)
        total += n
        seed += 1
        if progress is not None:
            progress.update(min(n, max(0, min_chunks - (total - n))))
    return files, total
