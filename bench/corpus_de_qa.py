"""A generated German corpus with paraphrased questions, for judging semantic retrieval in
German (bench/bench_embedding.py).

Each of the 40 facts below is a German passage and a question written with other words
(synonyms, other word classes, colloquial terms: "Homeoffice" for "von zu Hause aus
arbeiten"), so that BM25 finds little and the embedding model has to understand the meaning.
Each fact also has a near miss: a sentence on the same subject that does not answer the
question; it is put into another document. Documents are assembled deterministically
(seeded RNG): the fact's passage, two or three near misses of other facts, and filler
paragraphs from `bench/corpus.py`'s German administrative prose; plus 40 filler-only
documents. The goldenset names the one document that answers each question (grade 2).

`write_corpus(dest)` writes `de_qa_NN.md` files and returns the goldenset; `python
bench/corpus_de_qa.py DEST` also writes `DEST/goldenset.yaml`."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import _paragraph  # noqa: E402
from eval.goldenset import GoldQuery, Goldenset, Relevant, make_goldenset  # noqa: E402

# (title, passage, question, near miss)
FACTS = [
    ("Mobiles Arbeiten",
     "Beschäftigte dürfen an bis zu drei Tagen je Woche von zu Hause aus tätig sein, sofern die "
     "Vorgesetzte oder der Vorgesetzte zustimmt.",
     "Wie oft ist Homeoffice erlaubt?",
     "Im Büro gilt eine Kernarbeitszeit von 9 bis 15 Uhr."),
    ("Dienstreisen",
     "Fahrten mit der Bahn werden in der zweiten Klasse erstattet; für Strecken über vier "
     "Stunden ist die erste Klasse zulässig.",
     "Bekomme ich bei langen Zugfahrten ein Ticket erster Klasse bezahlt?",
     "Hotelkosten werden bis 120 Euro pro Nacht übernommen."),
    ("Urlaub",
     "Der Erholungsurlaub beträgt 30 Arbeitstage im Kalenderjahr; Resturlaub verfällt am 31. "
     "März des Folgejahres.",
     "Bis wann muss ich übrig gebliebene freie Tage nehmen?",
     "Urlaubsanträge sind zwei Wochen vorher im Personalportal zu stellen."),
    ("Krankmeldung",
     "Wer arbeitsunfähig ist, meldet dies am ersten Tag vor Dienstbeginn telefonisch; ab dem "
     "vierten Tag ist eine ärztliche Bescheinigung vorzulegen.",
     "Ab wann brauche ich einen gelben Schein vom Arzt?",
     "Betriebsärztliche Sprechstunden finden dienstags statt."),
    ("Fahrradleasing",
     "Das Unternehmen least für Mitarbeitende Diensträder über eine Gehaltsumwandlung mit einer "
     "Laufzeit von 36 Monaten.",
     "Kann ich über die Firma ein E-Bike bekommen?",
     "Auf dem Betriebsgelände stehen 40 überdachte Stellplätze für Zweiräder."),
    ("Passwortregeln",
     "Kennwörter müssen mindestens zwölf Zeichen lang sein und werden nach einem Jahr "
     "ungültig.",
     "Wie lang muss mein Login-Geheimnis sein?",
     "Gesperrte Benutzerkonten entsperrt der IT-Service nach Rückruf."),
    ("Datensicherung",
     "Sicherungskopien der Fileserver werden jede Nacht erstellt und 90 Tage lang aufbewahrt.",
     "Wie weit zurück kann man gelöschte Dateien wiederherstellen?",
     "Die Serverräume sind mit einer Gaslöschanlage ausgestattet."),
    ("Trinkwasserhärte",
     "Das Leitungswasser im Versorgungsgebiet hat 14 Grad deutscher Härte und liegt damit im "
     "Bereich hart.",
     "Muss ich meine Waschmaschine wegen Kalk besonders dosieren?",
     "Die Trinkwasserverordnung schreibt regelmäßige Proben vor."),
    ("Zählerablesung",
     "Einmal im Jahr liest ein Beauftragter den Stromzähler ab; alternativ kann der Stand online "
     "übermittelt werden.",
     "Wie gebe ich meinen Verbrauch durch, wenn ich nicht zu Hause bin?",
     "Intelligente Messsysteme werden bis 2030 flächendeckend eingebaut."),
    ("Abschlagszahlung",
     "Die monatliche Vorauszahlung kann im Kundenportal um bis zu 20 Prozent angepasst werden.",
     "Kann ich meinen Monatsbetrag für Strom selbst senken?",
     "Rechnungen werden Ende Januar verschickt."),
    ("Umzug",
     "Bei einem Wohnungswechsel ist der Vertrag spätestens zwei Wochen vor dem Auszug "
     "umzumelden.",
     "Was muss ich tun, wenn ich in eine neue Wohnung ziehe?",
     "Neukunden erhalten einen Willkommensbonus von 50 Euro."),
    ("Störungsmeldung",
     "Bei einem Ausfall der Stromversorgung erreichen Sie den Bereitschaftsdienst rund um die "
     "Uhr unter der kostenlosen Rufnummer 0800 123 456.",
     "Wen rufe ich an, wenn nachts das Licht ausgeht?",
     "Geplante Abschaltungen werden eine Woche vorher angekündigt."),
    ("Fernwärme Wartung",
     "Die Übergabestation ist jährlich durch einen zugelassenen Fachbetrieb zu überprüfen.",
     "Wie oft muss jemand nach meinem Heizungsanschluss schauen?",
     "Der Fernwärmepreis wird halbjährlich angepasst."),
    ("Ladesäulen",
     "An den öffentlichen Ladepunkten der Stadtwerke kostet eine Kilowattstunde 39 Cent; "
     "Blockiergebühren fallen nach vier Stunden an.",
     "Was zahle ich, wenn ich mein Elektroauto in der Stadt auflade?",
     "Der Ausbau weiterer Ladepunkte ist für 2026 geplant."),
    ("Photovoltaik",
     "Für Solaranlagen auf Privatdächern bis 10 Kilowatt Spitzenleistung zahlt der Netzbetreiber "
     "eine Einspeisevergütung von 8,1 Cent je Kilowattstunde.",
     "Wie viel Geld bekomme ich für den Strom von meinem Hausdach?",
     "Speicher erhöhen den Eigenverbrauch deutlich."),
    ("Haushaltsausschuss",
     "Förderanträge über 50.000 Euro bedürfen der Zustimmung des Haushaltsausschusses.",
     "Wer muss große Zuschüsse genehmigen?",
     "Der Ausschuss tagt viermal im Jahr im Rathaus."),
    ("Protokollfrist",
     "Die Niederschrift einer Sitzung ist den Mitgliedern binnen zehn Tagen zuzustellen.",
     "Wann bekommen Ratsmitglieder die Mitschrift einer Versammlung?",
     "Sitzungen sind grundsätzlich öffentlich."),
    ("Beschlussfähigkeit",
     "Der Vorstand kann nur entscheiden, wenn mehr als die Hälfte seiner Mitglieder anwesend "
     "ist.",
     "Wie viele Leute müssen da sein, damit das Gremium abstimmen darf?",
     "Der Vorstand wird für vier Jahre gewählt."),
    ("Brandschutzübung",
     "Zweimal jährlich wird die Räumung des Gebäudes geprobt; Sammelplatz ist der Parkplatz "
     "Nord.",
     "Wo treffen wir uns, wenn der Feueralarm losgeht?",
     "Feuerlöscher werden alle zwei Jahre geprüft."),
    ("Erste Hilfe",
     "In jedem Stockwerk sind mindestens zwei ausgebildete Ersthelfer benannt; ihre Namen "
     "hängen am Schwarzen Brett.",
     "An wen wende ich mich, wenn sich ein Kollege verletzt?",
     "Verbandkästen werden jährlich aufgefüllt."),
    ("Kantine",
     "Das Betriebsrestaurant bietet werktags zwischen 11:30 und 14:00 Uhr ein vegetarisches "
     "Gericht für 4,50 Euro an.",
     "Gibt es mittags etwas Fleischloses zu essen?",
     "Getränkeautomaten stehen im Erdgeschoss."),
    ("Weiterbildung",
     "Jede Mitarbeiterin und jeder Mitarbeiter hat Anspruch auf fünf bezahlte Bildungstage im "
     "Jahr.",
     "Wie viele Tage darf ich für Kurse und Seminare freinehmen?",
     "Das Schulungsprogramm erscheint jeweils im Herbst."),
    ("Elternzeit",
     "Die Freistellung zur Betreuung eines Kindes ist spätestens sieben Wochen vor Beginn "
     "schriftlich zu beantragen.",
     "Wann muss ich Bescheid geben, dass ich nach der Geburt zu Hause bleiben will?",
     "Ein Eltern-Kind-Zimmer steht im dritten Stock bereit."),
    ("Gleitzeit",
     "Plusstunden auf dem Arbeitszeitkonto dürfen höchstens 40 Stunden betragen; darüber "
     "hinaus verfallen sie.",
     "Wie viele Überstunden kann ich ansammeln?",
     "Die Zeiterfassung erfolgt über Terminals am Eingang."),
    ("Dienstwagen",
     "Private Fahrten mit einem Firmenfahrzeug werden pauschal mit einem Prozent des "
     "Listenpreises monatlich versteuert.",
     "Was kostet es mich steuerlich, wenn ich das Auto der Firma auch am Wochenende nutze?",
     "Fahrzeuge werden alle vier Jahre ersetzt."),
    ("Schlüsselverlust",
     "Ein verlorener Generalschlüssel ist unverzüglich dem Sicherheitsdienst zu melden; die "
     "Schließanlage wird dann auf Kosten des Verursachers getauscht.",
     "Was passiert, wenn ich meinen Büroschlüssel verliere?",
     "Besucher erhalten am Empfang einen Tagesausweis."),
    ("Datenschutzvorfall",
     "Eine Verletzung des Schutzes personenbezogener Daten ist binnen 72 Stunden der "
     "Aufsichtsbehörde anzuzeigen.",
     "Wie schnell muss ein Datenleck den Behörden gemeldet werden?",
     "Der Datenschutzbeauftragte berichtet jährlich der Geschäftsführung."),
    ("Aktenaufbewahrung",
     "Buchungsbelege sind zehn Jahre, Geschäftsbriefe sechs Jahre aufzubewahren.",
     "Wie lange muss ich Quittungen und Rechnungen behalten?",
     "Das Archiv befindet sich im Untergeschoss."),
    ("Vergabe",
     "Aufträge ab 25.000 Euro netto werden öffentlich ausgeschrieben; darunter genügen drei "
     "Vergleichsangebote.",
     "Ab welchem Wert muss ein Auftrag für alle Firmen bekanntgemacht werden?",
     "Die Vergabestelle ist Teil der Abteilung Einkauf."),
    ("Reisekostenabrechnung",
     "Die Abrechnung einer Dienstreise ist innerhalb von sechs Monaten nach Reiseende "
     "einzureichen, sonst erlischt der Anspruch.",
     "Bis wann kann ich meine Auslagen von unterwegs zurückfordern?",
     "Verpflegungspauschalen richten sich nach dem Bundesreisekostengesetz."),
    ("Wasserrohrbruch",
     "Bei einem Schaden an der Hausanschlussleitung sperrt der Kunde zuerst den Hauptabsperrhahn "
     "im Keller und verständigt dann den Entstördienst.",
     "Was mache ich zuerst, wenn im Keller Wasser aus der Leitung spritzt?",
     "Die Hausanschlussleitung gehört bis zur Grundstücksgrenze dem Versorger."),
    ("Kündigung Energievertrag",
     "Der Liefervertrag kann mit einer Frist von einem Monat zum Monatsende beendet werden.",
     "Wie schnell komme ich aus meinem Stromvertrag heraus?",
     "Ein Anbieterwechsel ist für Kunden kostenlos."),
    ("Grünschnitt",
     "Gartenabfälle nimmt der Wertstoffhof von März bis November samstags kostenfrei an.",
     "Wo kann ich im Frühjahr Äste und Laub loswerden?",
     "Sperrmüll wird zweimal im Jahr abgeholt."),
    ("Parkausweis",
     "Anwohner erhalten für 30 Euro im Jahr eine Berechtigung, in ihrer Zone zu parken.",
     "Was kostet es, vor der eigenen Haustür das Auto abzustellen?",
     "Die Parkhäuser in der Innenstadt öffnen um sechs Uhr."),
    ("Hundesteuer",
     "Für den ersten Hund sind jährlich 96 Euro Abgabe zu entrichten, für jeden weiteren 144 "
     "Euro.",
     "Wie viel muss ich der Gemeinde für meinen Vierbeiner zahlen?",
     "Hundekotbeutel gibt es an allen Spielplätzen."),
    ("Bibliothek",
     "Medien können drei Wochen ausgeliehen und zweimal verlängert werden, sofern keine "
     "Vormerkung vorliegt.",
     "Wie lange darf ich ein Buch aus der Bücherei behalten?",
     "Der Lesesaal hat 80 Arbeitsplätze."),
    ("Schwimmbad",
     "Das Hallenbad ist montags wegen Reinigung geschlossen; an den übrigen Tagen öffnet es um "
     "sieben Uhr.",
     "An welchem Wochentag kann ich nicht schwimmen gehen?",
     "Die Sauna kostet einen Aufpreis von fünf Euro."),
    ("Serverwartung",
     "Updates der Produktivsysteme werden im Wartungsfenster am ersten Dienstag im Monat "
     "zwischen 22 und 2 Uhr eingespielt.",
     "Wann sind die Systeme wegen Aktualisierungen nicht erreichbar?",
     "Testsysteme werden wöchentlich neu aufgesetzt."),
    ("Phishing",
     "Verdächtige E-Mails leiten Beschäftigte ungeöffnet an die Adresse sicherheit@stadtwerke "
     "weiter und löschen sie anschließend.",
     "Was tue ich mit einer komischen Nachricht, die nach meinem Kennwort fragt?",
     "Die Firewall blockiert bekannte Schadseiten."),
    ("Zugang Rechenzentrum",
     "Fremdfirmen betreten das Rechenzentrum nur in Begleitung und nach Eintrag ins "
     "Besucherbuch.",
     "Darf ein externer Techniker allein in den Serverraum?",
     "Die Klimatisierung hält 22 Grad Raumtemperatur."),
]


def write_corpus(dest: Path, *, seed: int = 15, filler_docs: int = 40) -> Goldenset:
    """Write the documents into `dest` and return the goldenset (deterministic)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    n = len(FACTS)
    queries = []
    for i, (title, passage, question, _near) in enumerate(FACTS):
        others = rng.sample([j for j in range(n) if j != i], 3)
        parts = [f"# {title}", _paragraph(rng, "de"), passage]
        for j in others:
            parts.append(FACTS[j][3])
            parts.append(_paragraph(rng, "de"))
        name = f"de_qa_{i + 1:02d}.md"
        (dest / name).write_text("\n\n".join(parts) + "\n", encoding="utf-8")
        queries.append(GoldQuery(id=f"de{i + 1:02d}", question=question, language="de",
                                 tags=["paraphrase"], relevant=[Relevant(name, 2)],
                                 reference_contexts=[passage]))
    for k in range(filler_docs):
        parts = [f"# Vermerk {k + 1}"] + [_paragraph(rng, "de") for _ in range(4)]
        (dest / f"de_fill_{k + 1:02d}.md").write_text("\n\n".join(parts) + "\n",
                                                      encoding="utf-8")
    return make_goldenset("de_qa", queries, collection="de_qa",
                          description="Generated German facts with paraphrased questions "
                          "(bench/corpus_de_qa.py).")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    gs = write_corpus(out)
    (out / "goldenset.yaml").write_text(gs.to_yaml(), encoding="utf-8")
    print(f"{len(gs.queries)} questions, {len(list(out.glob('*.md')))} documents in {out}")
