#!/usr/bin/env python3
"""Generate the labelled classification set in data/classification/ (issue 14), deterministic.

    python data/make_classification_set.py

28 documents, two of each primary type the seed names (generic_text, web_article,
documentation_website, book, scientific_paper, technical_report, meeting_minutes, policy,
contract, code_documentation, source_code_file, api_reference, runbook_or_ops_doc,
requirement_spec), German and English, as Markdown, text, HTML and source files. About
half have a file name that says nothing (`dokument_07.txt`), so the text and structure must
carry the decision. The labels of these, of the 15 sample documents and of the OCR fixtures
(`pdf_scanned`) are in data/classification/labels.yaml; backend/ingest/classify_eval.py
measures the accuracy (docs/classification.md, tests/test_classification_accuracy.py).

Byte-identical reruns (plain text written as UTF-8; labels sorted)."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "classification"
sys.path.insert(0, str(HERE))

DOCS: dict[str, tuple[str, str]] = {}  # file name -> (primary type, content)


def doc(name: str, label: str, text: str) -> None:
    DOCS[name] = (label, text.strip("\n") + "\n")


# ---- generic_text ---------------------------------------------------------------------------
doc("notiz_umzug.txt", "generic_text", """
Umzug der Abteilung Kundenservice

Liebe Kolleginnen und Kollegen,

wie bereits angekündigt zieht unsere Abteilung im Juni in das zweite Obergeschoss. Bitte packt
eure persönlichen Sachen bis Freitag in die bereitgestellten Kisten und beschriftet sie mit
eurem Namen. Die IT baut die Arbeitsplätze am Wochenende um, sodass am Montag alles wieder
läuft. Die Kaffeeküche bleibt, wo sie ist.

Bei Fragen meldet euch gern bei mir.

Viele Grüße
Anna
""")
doc("dokument_14.txt", "generic_text", """
Thoughts after the summer outing

The boat trip on the lake was a great success and many of you asked whether we could do it
again next year. The weather held, the food was good and the guide told us a lot about the
history of the old harbour. Thank you to everyone who helped organise the day, and to the
drivers who brought everybody home safely. Photos are on the shared drive.
""")

# ---- web_article ------------------------------------------------------------------------------
doc("stadtfest_bericht.html", "web_article", """
<!DOCTYPE html><html lang="de"><head><title>Tausende feiern beim Birkenauer Stadtfest</title></head>
<body><header><nav><a href="/">Start</a> <a href="/news">Nachrichten</a></nav></header>
<main><article>
<h1>Tausende feiern beim Birkenauer Stadtfest</h1>
<p class="meta">Veröffentlicht am 8. Juli 2024 von Jana Berger</p>
<p>Bei strahlendem Sonnenschein haben am Wochenende rund 12.000 Menschen das Stadtfest in der
Birkenauer Altstadt besucht. Auf drei Bühnen spielten regionale Bands, auf dem Marktplatz
boten Vereine Speisen und Getränke an.</p>
<p>Besonders beliebt war der Trinkwasserbrunnen der Stadtwerke, an dem sich Besucherinnen und
Besucher kostenlos erfrischen konnten. „Wir haben an beiden Tagen über 4.000 Becher
ausgegeben“, sagte eine Sprecherin.</p>
<p>Das nächste Stadtfest findet im Juli 2025 statt.</p>
<p><a href="/news/stadtfest">Weiterlesen</a> · <a href="#">Teilen</a></p>
</article></main><footer>© Birkenauer Tageblatt</footer></body></html>
""")
doc("post_881.html", "web_article", """
<!DOCTYPE html><html lang="en"><head><title>Why our town is switching to heat pumps</title></head>
<body><header><nav>Home | Blog | About</nav></header><main>
<article><h1>Why our town is switching to heat pumps</h1>
<p>Posted by Tom Reilly on March 3, 2024</p>
<p>Last winter, gas prices made headlines every week. This spring the council voted to replace
the boilers in all municipal buildings with heat pumps by 2028. We talked to the engineers who
planned the switch and to residents who already heat their homes this way.</p>
<p>The first school was converted in February. The caretaker says the classrooms are warmer and
the system is quieter than expected. Critics point to the cost of insulation that must come
first.</p>
<p>What do you think? Share this article and tell us in the comments.</p>
</article></main><footer>Local Voices blog</footer></body></html>
""")

# ---- documentation_website --------------------------------------------------------------------
doc("docs_sensor_setup.html", "documentation_website", """
<!DOCTYPE html><html lang="en"><head><title>Connecting a sensor – FlowMeter Documentation</title></head>
<body><nav class="sidebar"><a href="/docs/">Overview</a><a href="/docs/install">Installation</a>
<a href="/docs/sensors">Sensors</a><a href="/docs/alerts">Alerts</a></nav><main>
<h1>Connecting a sensor</h1>
<p>This page explains how to connect a new flow sensor to the FlowMeter hub and check that it
reports values.</p>
<h2>Before you start</h2>
<p>Make sure the hub runs firmware 2.4 or later and that the sensor is powered.</p>
<h2>Pair the sensor</h2>
<pre><code>flowmeter pair --port /dev/ttyUSB0 --name intake-north
flowmeter status intake-north</code></pre>
<h2>Configure the interval</h2>
<p>Set <code>sensor.interval_s</code> in <code>hub.yaml</code> to the reporting interval.</p>
<h2>See also</h2><p>Alerts, Troubleshooting.</p>
</main><footer>FlowMeter docs · Edit this page on GitHub</footer></body></html>
""")
doc("seite_42.html", "documentation_website", """
<!DOCTYPE html><html lang="de"><head><title>Benutzerverwaltung – Dokumentation Kundenportal</title></head>
<body><nav><a href="/doku/">Übersicht</a><a href="/doku/rollen">Rollen</a></nav><main>
<h1>Benutzerverwaltung</h1>
<p>Im Bereich Benutzerverwaltung legen Administratorinnen und Administratoren Konten an, vergeben
Rollen und sperren Zugänge.</p>
<h2>Konto anlegen</h2>
<p>Öffnen Sie <em>Einstellungen → Benutzer</em> und wählen Sie <em>Neu</em>. Pflichtfelder sind Name
und E-Mail-Adresse.</p>
<h2>Rollen</h2>
<table><tr><th>Rolle</th><th>Rechte</th></tr><tr><td>Leser</td><td>Ansehen</td></tr>
<tr><td>Bearbeiter</td><td>Ansehen, Ändern</td></tr></table>
<h2>Konfiguration</h2>
<pre><code>portal.users.max_sessions: 3
portal.users.lockout_minutes: 30</code></pre>
</main><footer>Dokumentation · Stand 2024</footer></body></html>
""")

# ---- book -------------------------------------------------------------------------------------
CHAPTERS_DE = ["Die Quellen am Eichberg", "Der Bau der ersten Leitung", "Seuchen und Filter",
               "Das Wasserwerk von 1911", "Krieg und Wiederaufbau", "Die Zeit der Fernwasser"]
doc("buch_wasserversorgung.txt", "book", "Wasser für Birkenau\nEine Geschichte der städtischen "
    "Wasserversorgung\n\nISBN 978-3-00-012345-6\n\nInhaltsverzeichnis\n\n"
    + "\n".join(f"Kapitel {i} {t} ........ {i * 23}" for i, t in enumerate(CHAPTERS_DE, 1))
    + "\n\nVorwort\n\nDieses Buch erzählt, wie eine kleine Stadt zu sauberem Wasser kam. Es stützt "
    "sich auf Akten des Stadtarchivs und auf Gespräche mit ehemaligen Mitarbeitern.\n\n"
    + "\n\n".join(f"Kapitel {i} {t}\n\n" + " ".join(
        f"Im Jahr {1850 + 20 * i + k} berichtete die Chronik über {t.lower()}, und der Rat "
        f"beriet lange über die Kosten." for k in range(6)) for i, t in enumerate(CHAPTERS_DE, 1)))
CHAPTERS_EN = ["A Valley Before the Dam", "The Engineers Arrive", "Flood Year", "Power for the "
               "Mills", "The Long Drought", "A River Returned"]
doc("the_river.md", "book", "# The River\n\n*A history of the Birke valley*\n\n## Table of Contents\n\n"
    + "\n".join(f"- Chapter {i}: {t}" for i, t in enumerate(CHAPTERS_EN, 1))
    + "\n\n## Preface\n\nThis book follows one river through two centuries of use and misuse.\n\n"
    + "\n\n".join(f"## Chapter {i}: {t}\n\n" + " ".join(
        f"In {1820 + 30 * i + k} the valley changed again, and the people who lived there "
        f"remembered {t.lower()} for generations." for k in range(6))
        for i, t in enumerate(CHAPTERS_EN, 1)))

# ---- scientific_paper -------------------------------------------------------------------------
doc("paper_leak_detection.md", "scientific_paper", """
# Acoustic leak detection in municipal water networks: a field study

M. Keller, S. Ortiz, L. Brandt — Institute for Water Engineering

## Abstract

We evaluate correlating acoustic loggers for locating leaks in a 310 km distribution network.
Over twelve months, 64 leaks were detected, 58 of them within 2 m of the excavation point.

## 1 Introduction

Water losses in European networks range from 5 % to over 30 % [1]. Acoustic methods are
established [2], but few studies report accuracy in dense urban networks.

## 2 Methods

Loggers were installed on 420 valves and sampled nightly between 2:00 and 4:00. Correlation
followed the cross-spectral method of Gao et al. [3].

## 3 Results

The median location error was 0.8 m (IQR 0.4–1.6 m). Plastic pipes showed larger errors.

## 4 Discussion

Our results confirm earlier laboratory findings [2, 3] under field conditions.

## References

[1] Lambert, A. (2002). International report on water losses management. Water Supply 2(4).
[2] Hunaidi, O. et al. (2000). Acoustic methods for locating leaks. doi:10.1016/S0000-0000(00)0
[3] Gao, Y. et al. (2005). On the selection of acoustic leak detection methods. J. Sound Vib.
""")
doc("dokument_07.txt", "scientific_paper", """
Kurzfristige Lastprognose für Stadtwerke mit Gradient Boosting

Zusammenfassung

Wir vergleichen drei Verfahren zur Prognose der stündlichen Stromlast eines kommunalen
Versorgers. Gradient Boosting senkt den mittleren absoluten Fehler gegenüber dem bisherigen
Standardlastprofil um 23 %.

1 Einleitung

Genaue Lastprognosen senken Beschaffungskosten (Müller et al., 2019). Bisherige Arbeiten
nutzen vor allem Wetterdaten [4].

2 Methodik

Datengrundlage sind 26.280 Stundenwerte der Jahre 2020 bis 2022. Als Merkmale dienen
Temperatur, Wochentag und Feiertage.

3 Ergebnisse

Der MAE sinkt von 1,9 MW auf 1,46 MW. Die größten Fehler treten an Brückentagen auf.

4 Diskussion

Die Ergebnisse bestätigen die Befunde von Schmidt und Lang (2021).

Literatur

[1] Müller, K. et al. (2019): Lastprognose in Verteilnetzen. Energiewirtschaft 43, S. 12–20.
[2] Schmidt, P.; Lang, R. (2021): Maschinelles Lernen im Energiehandel. doi:10.1000/xyz123
[4] Weber, A. (2018): Wetterabhängige Lastmodelle. Dissertation, TU Dresden.
""")

# ---- technical_report -------------------------------------------------------------------------
doc("pruefbericht_pumpe_p3.txt", "technical_report", """
Prüfbericht Kreiselpumpe P3, Pumpwerk Süd

Auftrag: Abnahmemessung nach Instandsetzung
Datum der Messung: 14. Mai 2024
Prüfer: Dipl.-Ing. R. Hahn

1 Gegenstand der Prüfung

Geprüft wurde die Kreiselpumpe P3 nach dem Austausch des Laufrads.

2 Messaufbau

Förderstrom, Förderhöhe und Leistungsaufnahme wurden an fünf Betriebspunkten gemessen.

3 Ergebnisse

Betriebspunkt | Förderstrom | Förderhöhe | Wirkungsgrad
1 | 120 m³/h | 48 m | 71 %
2 | 160 m³/h | 44 m | 76 %
3 | 200 m³/h | 39 m | 78 %

4 Bewertung

Die Messwerte liegen innerhalb der Toleranz der Kennlinie nach ISO 9906.

5 Fazit und Empfehlungen

Die Pumpe kann wieder in Betrieb genommen werden. Wir empfehlen eine Schwingungsmessung nach
drei Monaten.
""")
doc("report_network_load.md", "technical_report", """
# Analysis of peak load in the district heating network, winter 2023/24

## Summary of findings

The network reached 92 % of its design capacity on 19 January 2024. Two substations ran at
their limit for more than six hours.

## Data and method

Hourly measurements from 41 substations were evaluated. Outdoor temperature came from the
station at Werkstraße.

## Findings

- Peak demand: 38.6 MW at −12 °C.
- Return temperatures above 55 °C at 9 substations reduced the available capacity.

## Conclusions

The network has a reserve of about 3 MW. Lowering return temperatures gains more than a new
pipe.

## Recommendations

1. Inspect the nine substations with high return temperatures.
2. Repeat the analysis after the next winter.
""")

# ---- meeting_minutes --------------------------------------------------------------------------
doc("jour_fixe_2024-05.md", "meeting_minutes", """
# Jour fixe Netzbetrieb – 6. Mai 2024

Teilnehmer: K. Vogt (Leitung), M. Aydin, S. Roth, P. Lenz
Protokoll: S. Roth

## Tagesordnung

1. Störungen der Vorwoche
2. Baustellen Mai
3. Verschiedenes

## TOP 1: Störungen der Vorwoche

Zwei Rohrbrüche in der Lindenstraße. Ursache vermutlich Frost im Februar.

Beschluss: Die Leitung in der Lindenstraße wird vorgezogen saniert.

## TOP 2: Baustellen Mai

Die Baustelle am Markt beginnt am 21. Mai.

Aufgaben: M. Aydin informiert die Anwohner bis zum 15. Mai.

## TOP 3: Verschiedenes

Nächster Termin: 3. Juni 2024.
""")
doc("notes_17.txt", "meeting_minutes", """
Project Falcon – weekly meeting

Date: 12 June 2024, 10:00–11:00
Attendees: R. Chen (chair), A. Novak, B. Singh, D. Meyer
Minutes taken by: D. Meyer

Agenda item 1: Status of the data migration
The migration of the customer records is 80 % complete. Decision: the cut-over stays on 1 July.

Agenda item 2: Test results
Load tests passed. Two defects remain open.

Agenda item 3: Any other business
None.

Action items:
- A-17-01 A. Novak: fix the two open defects by 20 June.
- A-17-02 B. Singh: send the cut-over plan to the steering committee by 25 June.
""")

# ---- policy -------------------------------------------------------------------------------------
doc("reisekostenrichtlinie.md", "policy", """
# Reisekostenrichtlinie

Fassung vom 1. April 2024. Freigegeben durch die Geschäftsführung.

## § 1 Geltungsbereich

Diese Richtlinie gilt für alle Dienstreisen der Beschäftigten.

## § 2 Genehmigung

(1) Dienstreisen müssen vorab von der oder dem Vorgesetzten genehmigt werden.
(2) Auslandsreisen bedürfen der Zustimmung der Geschäftsführung.

## § 3 Verkehrsmittel

Vorrangig ist die Bahn zu nutzen. Flüge innerhalb Deutschlands sind untersagt.

## § 4 Abrechnung

Reisekosten sind innerhalb von sechs Monaten abzurechnen.

## § 5 Inkrafttreten

Diese Richtlinie tritt am 1. April 2024 in Kraft.
""")
doc("dokument_22.txt", "policy", """
Acceptable Use of IT Systems

Version 2.0, approved by the Board on 5 February 2024.

1 Scope
This policy applies to all employees, contractors and visitors who use company IT systems.

2 General rules
Users must protect their passwords and must not share accounts. Installing unapproved
software is prohibited.

3 E-mail and internet
Private use is permitted to a small extent. Users shall not download illegal content.

4 Monitoring
The company may review logs where there is a concrete suspicion of a violation.

5 Violations
Violations of this policy may lead to disciplinary measures.

6 Entry into force
This policy comes into force on 1 March 2024.
""")

# ---- contract ---------------------------------------------------------------------------------
doc("wartungsvertrag_klima.txt", "contract", """
Wartungsvertrag

zwischen

Stadtwerke Birkenau GmbH, Werkstraße 12, 12345 Birkenau – nachfolgend „Auftraggeber“ –

und

Kälte-Service Nord GmbH, Hafenweg 3, 12347 Seestadt – nachfolgend „Auftragnehmer“ –

§ 1 Vertragsgegenstand
Der Auftragnehmer wartet die Klimaanlagen im Verwaltungsgebäude gemäß Anlage 1.

§ 2 Vergütung
Die jährliche Pauschale beträgt 4.800 EUR zuzüglich Umsatzsteuer.

§ 3 Laufzeit und Kündigung
Der Vertrag beginnt am 1. Juli 2024 und läuft zwei Jahre. Er verlängert sich um ein Jahr,
wenn er nicht drei Monate vor Ablauf gekündigt wird.

§ 4 Haftung
Der Auftragnehmer haftet für Schäden, die er vorsätzlich oder grob fahrlässig verursacht.

Birkenau, den 10. Juni 2024

Unterschrift Auftraggeber                Unterschrift Auftragnehmer
""")
doc("agreement_0031.md", "contract", """
# Software Licence Agreement

This agreement is made between **Lumen Systems GmbH** ("Licensor") and **Stadtwerke Birkenau
GmbH** ("Customer").

## 1. Grant of licence

The Licensor grants the Customer a non-exclusive licence to use the Lumen Data Gateway on up
to four servers.

## 2. Fees

The Customer pays an annual fee of EUR 18,000.

## 3. Term and termination

The term of the agreement is three years. Either party may terminate it for cause with 30
days' written notice.

## 4. Warranty and liability

The Licensor warrants that the software performs as documented. Liability is limited to the
fees paid in the twelve months before the claim.

Signed for the Licensor: ____________  Signed for the Customer: ____________
""")

# ---- code_documentation, source_code_file, api_reference, runbook_or_ops_doc,
# requirement_spec: data/classification_set_technical.py
from classification_set_technical import DOCS as TECHNICAL  # noqa: E402

for _name, _label, _text in TECHNICAL:
    doc(_name, _label, _text)


def main() -> None:
    import yaml

    OUT.mkdir(exist_ok=True)
    for name, (_label, text) in DOCS.items():
        path = OUT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    labels = {f"classification/{n}": lab for n, (lab, _t) in DOCS.items()}
    labels.update(SAMPLE_LABELS)
    header = ("# Labelled classification set (issue 14): path under data/ -> primary_type.\n"
              "# Generated by data/make_classification_set.py; measured by\n"
              "# `python -m backend.ingest.classify_eval` (docs/classification.md).\n")
    (OUT / "labels.yaml").write_text(header + yaml.safe_dump(labels, sort_keys=True,
                                                            allow_unicode=True))
    print(f"{len(DOCS)} documents, {len(labels)} labels in {OUT}")


SAMPLE_LABELS = {
    "samples/annual_report_2023.pdf": "financial_report",
    "samples/benutzungsordnung_kundenportal.pdf": "policy",
    "samples/betriebshandbuch_wasserwerk.odt": "manual",
    "samples/datenschutzrichtlinie.docx": "policy",
    "samples/incident_report_INC-2024-031.docx": "incident_report",
    "samples/information_security_policy.odt": "policy",
    "samples/kundenportal_faq.html": "faq",
    "samples/lumen_api_quickstart.html": "api_reference",
    "samples/lumen_handbuch.pdf": "manual",
    "samples/lumen_release_notes.md": "release_notes",
    "samples/merkblatt_fernwaerme.pdf": "information_sheet",
    "samples/pressemitteilung_wasserpreis_2025.txt": "press_release",
    "samples/protokoll_werkausschuss_2024-03-12.txt": "meeting_minutes",
    "samples/runbook_gateway_failover.md": "runbook_or_ops_doc",
    "samples/steering_committee_minutes_2024-04-18.docx": "meeting_minutes",
    "ocr/scan_merkblatt.pdf": "pdf_scanned",
    "ocr/scan_annual_p2.png": "pdf_scanned",
    "ocr/mixed_annual_report.pdf": "financial_report",
}

if __name__ == "__main__":
    main()
