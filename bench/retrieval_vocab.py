"""The vocabulary of the retrieval benchmarks' generated corpus (bench/retrieval_corpus.py):
German and English nouns, compounds, roles, verbs, configuration keys, sentence and query
templates, headings and document kinds, and `Vocab`, which draws from them with Zipf weights
and per-topic favourites (deterministic in the seed)."""
from __future__ import annotations

import random

SEED = 20240603
N_TOPICS = 50

DE_NOUNS = """Antrag Frist Beschluss Protokoll Sitzung Vorstand Haushalt Satzung Richtlinie Vertrag
Rechnung Abrechnung Dienstreise Urlaub Arbeitszeit Gleitzeit Homeoffice Datenschutz Einwilligung
Auskunft Löschung Aufbewahrung Archiv Server Datenbank Sicherung Wiederherstellung Netzwerk
Firewall Zugang Passwort Benutzerkonto Berechtigung Rolle Administrator Schnittstelle Dienst
Wartung Störung Ticket Eskalation Bereitschaft Betrieb Rechenzentrum Speicher Kapazität Lizenz
Beschaffung Ausschreibung Angebot Auftrag Lieferant Inventar Gerät Drucker Laptop Mobiltelefon
Schulung Unterweisung Brandschutz Arbeitsschutz Gefährdung Notfall Evakuierung Sammelplatz
Mitarbeiter Personalrat Betriebsrat Einstellung Kündigung Probezeit Zeugnis Gehalt Zulage
Reisekosten Erstattung Beleg Kostenstelle Budget Prüfung Revision Bericht Kennzahl Ziel
Projekt Meilenstein Termin Besprechung Tagesordnung Abstimmung Mehrheit Gremium Ausschuss
Stellungnahme Widerspruch Bescheid Gebühr Zuständigkeit Verfahren Genehmigung Freigabe
Veröffentlichung Webseite Intranet Formular Vorlage Handbuch Anleitung Installation Konfiguration
Aktualisierung Version Änderung Migration Testumgebung Produktion Protokollierung Überwachung
Alarm Schwellenwert Zertifikat Verschlüsselung Schlüssel Signatur Postfach Verteiler Telefon
Raum Gebäude Parkplatz Fahrzeug Kantine Reinigung Heizung Energie Strom Nachhaltigkeit""".split()
DE_PREFIX = """Daten Server Sicherheits Personal Urlaubs Dienst Reise Kosten Netz Zugriffs Speicher
Projekt Vertrags Betriebs Arbeits Fahrzeug Gebäude Brand Haushalts Lizenz Wartungs Notfall
Schulungs Prüf Änderungs""".split()
DE_SUFFIX = """schutz antrag regel plan konto richtlinie frist vereinbarung verwaltung leitung
ordnung bericht stelle kosten zeit nachweis prüfung verfahren konzept übersicht""".split()
EN_NOUNS = """request deadline decision minutes meeting board budget bylaws policy contract invoice
expense travel leave vacation overtime workload remote privacy consent disclosure deletion
retention archive server database backup restore network firewall access password account
permission role administrator interface service maintenance outage ticket escalation on-call
operations datacenter storage capacity licence procurement tender quote order supplier inventory
device printer laptop phone training briefing fire safety hazard emergency evacuation assembly
employee council hiring termination probation reference salary allowance reimbursement receipt
cost-centre audit revision report metric objective project milestone schedule agenda vote quorum
committee statement objection notice fee responsibility procedure approval release publication
website intranet form template manual guide installation configuration update version change
migration staging production logging monitoring alert threshold certificate encryption key
signature mailbox mailing-list building parking vehicle canteen cleaning heating energy
sustainability cluster deployment pipeline container replica snapshot quota tenant endpoint
token session cache queue scheduler worker index shard query latency throughput incident
postmortem runbook rollback hotfix dependency vulnerability patch""".split()
EN_ADJ = """annual mandatory optional temporary permanent external internal critical minor
scheduled urgent approved pending rejected shared dedicated encrypted redundant default legacy
new revised quarterly monthly weekly regional central local secure public confidential""".split()
DE_ADJ = """jährlich verpflichtend optional befristet unbefristet extern intern kritisch gering
geplant dringend genehmigt offen abgelehnt gemeinsam verschlüsselt redundant neu überarbeitet
vierteljährlich monatlich wöchentlich zentral lokal sicher öffentlich vertraulich""".split()
DE_ROLES = """Geschäftsführung Abteilungsleitung Personalabteilung IT-Abteilung Datenschutzbeauftragte
Sicherheitsbeauftragte Teamleitung Projektleitung Buchhaltung Hausverwaltung Einkauf
Vorsitzende Schriftführung Revision Empfang""".split()
EN_ROLES = """management department-head HR IT-team data-protection-officer security-officer
team-lead project-lead accounting facilities procurement chair secretary auditor helpdesk""".split()
DE_VERBS = """geprüft genehmigt abgelehnt dokumentiert beantragt eingereicht freigegeben
aktualisiert gelöscht archiviert veröffentlicht beschlossen vertagt umgesetzt überwacht
gemeldet erstattet verlängert eingerichtet migriert""".split()
EN_VERBS = """reviewed approved rejected documented requested submitted released updated deleted
archived published decided postponed implemented monitored reported reimbursed extended
configured migrated""".split()
KEY_HEAD = "max min default session backup smtp log cache db auth proxy index upload retry http " \
           "mail report export sync crawl".split()
KEY_MID = "timeout retention port level size interval path host user limit ttl workers " \
          "batch threshold".split()
KEY_TAIL = ["", "_ms", "_days", "_mb", "_s", "_count"]
DE_TEMPLATES = [
    "Der {N} wird von der {R} {V}.",
    "Gemäß § {num} ist der {N} spätestens {num} Tage vor dem {N2} einzureichen.",
    "Im Protokoll vom {date} wurde festgehalten, dass {N} und {N2} gemeinsam {V} werden.",
    "Der Parameter {K} legt fest, wie der {N} behandelt wird; der Standardwert beträgt {num}.",
    "Für den {N} gilt eine {A} Frist von {num} Wochen.",
    "Bei Fragen zum {N} wenden Sie sich bitte an die {R}.",
    "Die {N} muss vor der Inbetriebnahme durch die {R} geprüft und dokumentiert werden.",
    "Beschluss: Der {N} wird ab dem {date} {A} umgesetzt.",
    "TOP {num}: {N} – Bericht der {R} zum {N2}.",
    "Änderungen an {K} erfordern einen Neustart des Dienstes {N}.",
    "Die Kosten für {N} und {N2} trägt die jeweilige Kostenstelle, sofern nichts anderes vereinbart ist.",
    "Ein {A} {N} ist nur mit Zustimmung der {R} zulässig.",
    "Nach Abschluss der {N} wird der {N2} im Archiv abgelegt und nach {num} Jahren gelöscht.",
    "Die {R} berichtet, dass der {N} im letzten Quartal {num} Mal {V} wurde.",
    "Hinweis: Der Wert {K} darf nicht größer als {num} sein, sonst schlägt die {N} fehl.",
    "Der Antrag auf {N} ist über das Formular {code} im Intranet zu stellen.",
    "Es wird vereinbart, den {N} bis zum {date} zu überarbeiten und erneut vorzulegen.",
    "Zuständig für {N}, {N2} und {N3} ist die {R}.",
    "Die Regelung zum {N} gilt für alle Mitarbeiter mit Ausnahme der {R}.",
    "Siehe auch Abschnitt {num}.{num2} zur {N} und zum {N2}.",
]
EN_TEMPLATES = [
    "The {N} is {V} by the {R}.",
    "According to section {num}, the {N} must be submitted at least {num} days before the {N2}.",
    "The minutes of {date} record that the {N} and the {N2} will be {V} together.",
    "The setting {K} controls how the {N} is handled; its default value is {num}.",
    "A {A} deadline of {num} weeks applies to the {N}.",
    "For questions about the {N}, please contact the {R}.",
    "The {N} must be checked and documented by the {R} before it goes live.",
    "Decision: the {N} will be {A} from {date}.",
    "Item {num}: {N} – report by the {R} on the {N2}.",
    "Changing {K} requires a restart of the {N} service.",
    "Costs for the {N} and the {N2} are charged to the cost centre unless agreed otherwise.",
    "A {A} {N} is only allowed with approval from the {R}.",
    "After the {N} is closed, the {N2} is archived and deleted after {num} years.",
    "The {R} reported that the {N} was {V} {num} times last quarter.",
    "Note: {K} must not exceed {num}, otherwise the {N} fails.",
    "Requests for a {N} are filed with form {code} on the intranet.",
    "It was agreed to revise the {N} by {date} and present it again.",
    "The {R} is responsible for the {N}, the {N2} and the {N3}.",
    "The {N} rule applies to all staff except the {R}.",
    "See also section {num}.{num2} on the {N} and the {N2}.",
]
DE_HEADINGS = ["Einleitung", "Geltungsbereich", "Zuständigkeiten", "Verfahren", "Fristen",
               "Kosten", "Datenschutz", "Technische Umsetzung", "Konfiguration", "Betrieb",
               "Beschlüsse", "Verschiedenes", "Anhang", "Begriffe", "Ausnahmen"]
EN_HEADINGS = ["Introduction", "Scope", "Responsibilities", "Procedure", "Deadlines", "Costs",
               "Privacy", "Technical implementation", "Configuration", "Operations", "Decisions",
               "Any other business", "Appendix", "Definitions", "Exceptions"]
DE_KINDS = ["Richtlinie", "Protokoll", "Handbuch", "Dienstanweisung", "Bericht", "Konzept"]
EN_KINDS = ["Policy", "Minutes", "Manual", "Guideline", "Report", "Runbook"]
DOC_TYPES = {"Richtlinie": "policy", "Policy": "policy", "Protokoll": "minutes",
             "Minutes": "minutes", "Handbuch": "manual", "Manual": "manual", "Runbook": "manual"}
EXTS = ["pdf", "docx", "html", "md", "txt", "odt"]
DE_QUERIES = [
    "Wie lange gilt die Frist für den {N}?",
    "Wer ist für {N} zuständig?",
    "Was regelt § {num} zum {N}?",
    "Welcher Standardwert gilt für {K}?",
    "{N} {N2} beantragen",
    "Beschluss zum {N} im Protokoll",
    "Wie beantrage ich {N}?",
    "Unterschied zwischen {N} und {N2}",
    "Wann wird der {N} gelöscht?",
    "Neustart nach Änderung von {K}",
    "Kosten für {N} erstatten",
    "{A} {N} Genehmigung durch die {R}",
]
EN_QUERIES = [
    "How do I configure {K}?",
    "what is the deadline for the {N}",
    "who approves {N} requests",
    "{A} {N} policy",
    "default value of {K}",
    "{N} retention period",
    "steps to restore the {N} after an outage",
    "is a {A} {N} allowed without approval",
    "{N} and {N2} responsibilities of the {R}",
    "why does the {N} fail when {K} is too large",
    "report on the {N} by the {R}",
    "{ENV} environment variable",
]


class Vocab:
    """Deterministic vocabularies with Zipf weights and per-topic favourites."""

    def __init__(self, seed: int = SEED):
        rng = random.Random(seed)
        compounds = [p + s for p in DE_PREFIX for s in DE_SUFFIX]
        de = list(dict.fromkeys(DE_NOUNS + compounds))
        en = list(dict.fromkeys(EN_NOUNS + [f"{a} {n}" for a in EN_ADJ[:12] for n in EN_NOUNS[:60:3]]))
        rng.shuffle(de)
        rng.shuffle(en)
        self.nouns = {"de": de, "en": en}
        self.cw = {lang: _zipf_cum(len(words), 1.05) for lang, words in self.nouns.items()}
        keys = []
        for h in KEY_HEAD:
            for m in KEY_MID:
                keys.append(f"{h}_{m}{rng.choice(KEY_TAIL)}")
        rng.shuffle(keys)
        self.keys = keys
        self.key_cw = _zipf_cum(len(keys), 1.0)
        # Topics: favourite nouns (both languages), config keys and roles.
        self.topics = []
        for t in range(N_TOPICS):
            trng = random.Random(seed * 1000 + t)
            self.topics.append({
                "de": trng.sample(de[: len(de) // 2], 12) + trng.sample(de, 6),
                "en": trng.sample(en[: len(en) // 2], 12) + trng.sample(en, 6),
                "keys": trng.sample(keys, 5),
                "R_de": trng.sample(DE_ROLES, 3),
                "R_en": trng.sample(EN_ROLES, 3),
            })

    def noun(self, rng: random.Random, lang: str, topic: int) -> str:
        if rng.random() < 0.55:
            return rng.choice(self.topics[topic][lang])
        return rng.choices(self.nouns[lang], cum_weights=self.cw[lang])[0]

    def key(self, rng: random.Random, topic: int) -> str:
        k = rng.choice(self.topics[topic]["keys"]) if rng.random() < 0.6 else \
            rng.choices(self.keys, cum_weights=self.key_cw)[0]
        style = rng.random()
        if style < 0.15:
            return "RAGSCOPE_" + k.upper()
        if style < 0.35:
            return k.replace("_", ".", 1)
        return k

    def fill(self, tpl: str, rng: random.Random, lang: str, topic: int) -> str:
        t = self.topics[topic]
        vals = {
            "N": self.noun(rng, lang, topic), "N2": self.noun(rng, lang, topic),
            "N3": self.noun(rng, lang, topic),
            "R": rng.choice(t["R_" + lang]) if rng.random() < 0.7 else
            rng.choice(DE_ROLES if lang == "de" else EN_ROLES),
            "V": rng.choice(DE_VERBS if lang == "de" else EN_VERBS),
            "A": rng.choice(DE_ADJ if lang == "de" else EN_ADJ),
            "K": self.key(rng, topic),
            "ENV": "RAGSCOPE_" + rng.choice(t["keys"]).upper(),
            "num": str(rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 20, 28, 30, 60, 90, 365])),
            "num2": str(rng.randint(1, 9)),
            "date": f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(2019, 2025)}"
            if lang == "de" else f"{rng.randint(2019, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "code": f"{rng.choice('ABFKPV')}-{rng.randint(10, 99)}",
        }
        return tpl.format(**vals)

    def sentence(self, rng: random.Random, lang: str, topic: int) -> str:
        tpl = rng.choice(DE_TEMPLATES if lang == "de" else EN_TEMPLATES)
        return self.fill(tpl, rng, lang, topic)


def _zipf_cum(n: int, s: float) -> list[float]:
    out, acc = [], 0.0
    for r in range(1, n + 1):
        acc += 1.0 / r ** s
        out.append(acc)
    return out
