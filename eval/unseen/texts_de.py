"""Texts of the generated German documents of the unseen answer benchmark (fictional
organisations, people and figures); rendered by make_documents_de.py."""

WAERMEPUMPE = """
= Betriebsanleitung Luft/Wasser-Wärmepumpe Calora AW12

Thermiq Heiztechnik GmbH · Ausgabe 03/2025 · Dokument-Nr. BA-AW12-DE-03

# 1 Sicherheitshinweise

Diese Anleitung richtet sich an die Betreiberin oder den Betreiber der Anlage. Installation, Inbetriebnahme und Wartung dürfen nur von einem zugelassenen Fachbetrieb durchgeführt werden. Die Wärmepumpe enthält das Kältemittel R290 (Propan), das brennbar ist. Im Umkreis von einem Meter um das Außengerät dürfen sich keine Zündquellen, Kellerschächte oder Bodenabläufe befinden.

Schalten Sie vor jeder Arbeit am Gerät die Anlage über den bauseitigen Hauptschalter spannungsfrei. Das Öffnen des Kältekreises ist ausschließlich Personen mit Sachkundenachweis erlaubt.

# 2 Gerätebeschreibung

Die Calora AW12 ist eine monoblock ausgeführte Luft/Wasser-Wärmepumpe zur Aufstellung im Freien. Sie heizt, kühlt und bereitet Warmwasser. Der Verdichter ist drehzahlgeregelt und passt die Leistung stufenlos dem Wärmebedarf an. Die Inneneinheit mit Regler, Umwälzpumpe und 3-Wege-Ventil wird an einer Wand im Heizraum montiert.

## 2.1 Technische Daten

| Kenngröße | Wert |
| Heizleistung bei A7/W35 | 11,8 kW |
| Leistungszahl COP bei A7/W35 | 4,9 |
| Heizleistung bei A-7/W35 | 9,6 kW |
| Maximale Vorlauftemperatur | 70 °C |
| Kältemittel / Füllmenge | R290 / 1,45 kg |
| Schallleistungspegel im Nachtbetrieb | 49 dB(A) |
| Einsatzgrenze Außentemperatur | -25 °C bis +43 °C |
| Gewicht Außengerät | 168 kg |

# 3 Bedienung

Der Regler Calora Control wird über einen Drehknopf und ein Farbdisplay bedient. Im Hauptmenü wählen Sie zwischen den Betriebsarten Automatik, Heizen, Kühlen, Nur Warmwasser und Standby. Im Auslieferungszustand ist die Betriebsart Automatik eingestellt.

Die Warmwasser-Solltemperatur ist ab Werk auf 50 °C eingestellt. Einmal pro Woche, jeweils sonntags um 2:00 Uhr, heizt die Anlage den Speicher zum Schutz vor Legionellen auf 65 °C auf; dafür wird der elektrische Heizstab zugeschaltet.

Der Flüsterbetrieb senkt die Verdichterdrehzahl zwischen 22:00 Uhr und 6:00 Uhr; der Zeitraum kann im Menü Einstellungen > Akustik geändert werden. Die Heizleistung sinkt im Flüsterbetrieb um bis zu 30 Prozent.

## 3.1 App und Fernzugriff

Über das Gateway Calora Link lässt sich die Wärmepumpe mit der App Thermiq Home bedienen. Das Gateway wird per LAN-Kabel an den Router angeschlossen; WLAN wird nicht unterstützt. Für die Nutzung von dynamischen Stromtarifen unterstützt die Anlage die SG-Ready-Schnittstelle.

# 4 Wartung und Pflege

Halten Sie das Außengerät frei von Laub und Schnee; der Abstand zu Wänden muss an der Ansaugseite mindestens 30 cm betragen. Der Schmutzfänger im Heizungsrücklauf ist bei der ersten Wartung nach drei Monaten und danach einmal jährlich zu reinigen. Der Fachbetrieb prüft einmal im Jahr die Dichtheit des Kältekreises, den Wasserdruck und die Funktion des Sicherheitsventils. Der Wasserdruck der Heizungsanlage soll im kalten Zustand zwischen 1,5 und 2,0 bar liegen.

# 5 Störungen

| Code | Bedeutung | Abhilfe |
| E04 | Durchfluss zu gering | Schmutzfänger reinigen, Luft aus der Anlage entfernen |
| E11 | Hochdruckstörung | Fachbetrieb informieren |
| E17 | Außentemperaturfühler defekt | Fachbetrieb informieren |
| E22 | Abtauung fehlgeschlagen | Außengerät von Eis befreien, Anlage neu starten |
| W03 | Wartung fällig | Wartungstermin vereinbaren |

Nach drei Hochdruckstörungen innerhalb von 24 Stunden verriegelt die Anlage und muss vom Fachbetrieb entriegelt werden.

# 6 Garantie

Thermiq gewährt auf die Calora AW12 eine Herstellergarantie von fünf Jahren, auf den Verdichter von zehn Jahren, sofern die Anlage jährlich von einem Fachbetrieb gewartet und über das Portal registriert wurde. Der Kundendienst ist unter 0800 8437 6470 erreichbar.
"""

REISEKOSTEN = """
= Reisekostenrichtlinie der Brauner & Sohn Logistik GmbH

Gültig ab 1. Januar 2025 · ersetzt die Richtlinie vom 1. März 2022 · freigegeben von der Geschäftsführung (Dr. Konstantin Brauner)

# 1 Geltungsbereich

Diese Richtlinie gilt für alle Beschäftigten der Brauner & Sohn Logistik GmbH an den Standorten Kassel, Erfurt und Göttingen, die im Auftrag des Unternehmens Dienstreisen unternehmen. Für Fahrerinnen und Fahrer im Fernverkehr gilt stattdessen die Betriebsvereinbarung Fernverkehr.

# 2 Genehmigung

Jede Dienstreise muss vor Reiseantritt im Reiseportal beantragt und von der oder dem Vorgesetzten genehmigt werden. Reisen ins Ausland und Reisen mit voraussichtlichen Kosten über 1.500 Euro bedürfen zusätzlich der Zustimmung der Bereichsleitung.

# 3 Verkehrsmittel

Grundsätzlich ist die Bahn zu nutzen. Bei Fahrten bis 4 Stunden Fahrzeit wird die 2. Klasse erstattet, bei längeren Fahrten die 1. Klasse. Inlandsflüge sind nur erlaubt, wenn die Bahnfahrt länger als 6 Stunden dauert. Für Fahrten mit dem privaten Pkw erstattet das Unternehmen 0,30 Euro je gefahrenem Kilometer. Dienstwagen aus dem Pool sind über das Reiseportal zu buchen.

# 4 Übernachtung

Die Übernachtungskosten werden bis zu den folgenden Höchstbeträgen je Nacht einschließlich Frühstück erstattet:

| Ort | Höchstbetrag je Nacht |
| München, Frankfurt am Main, Hamburg | 160 Euro |
| Berlin, Köln, Düsseldorf, Stuttgart | 140 Euro |
| übrige Orte im Inland | 110 Euro |
| Ausland | nach Freigabe der Bereichsleitung |

Hotels sollen über das Reiseportal gebucht werden, damit die Firmenraten gelten.

# 5 Verpflegungsmehraufwand

Für Verpflegung gelten die steuerlichen Pauschalen: 14 Euro bei einer Abwesenheit von mehr als 8 Stunden und 28 Euro für jeden vollen Kalendertag. Wird eine Mahlzeit vom Unternehmen oder auf dessen Veranlassung gestellt, wird die Pauschale gekürzt, für ein Frühstück um 5,60 Euro.

# 6 Abrechnung

Die Reisekostenabrechnung ist spätestens sechs Wochen nach Ende der Reise mit allen Originalbelegen im Reiseportal einzureichen. Später eingereichte Abrechnungen werden nur in begründeten Ausnahmefällen erstattet. Auf Antrag wird ein Vorschuss von bis zu 80 Prozent der voraussichtlichen Kosten gezahlt.

# 7 Ansprechpartner

Fragen zur Abrechnung beantwortet die Reisekostenstelle in Kassel, Frau Yvonne Tschirner, Durchwahl 217.
"""

FREIBAD = """
= Statusbericht Sanierung Waldfreibad Hollerbach – 3. Quartal 2025

Berichtszeitraum: 1. Juli bis 30. September 2025 · Bauherrin: Gemeinde Hollerbach · Projektsteuerung: Kramer Bauconsult GmbH, Projektleiter Benedikt Kramer · Bericht an den Gemeinderat vom 14. Oktober 2025

# 1 Gesamtstatus

Der Gesamtstatus des Projekts ist GELB. Die Bauarbeiten liegen etwa fünf Wochen hinter dem Terminplan, das Budget wird nach derzeitiger Prognose um 3,1 Prozent überschritten. Die Wiedereröffnung des Bades zur Saison 2026 am 16. Mai 2026 ist nach Einschätzung der Projektsteuerung weiterhin erreichbar, wenn die Edelstahlbecken bis Ende Februar montiert sind.

# 2 Fortschritt im Berichtszeitraum

- Der Abbruch der alten Betonbecken ist abgeschlossen.
- Die Bodenplatte für das neue Technikgebäude wurde am 22. August 2025 betoniert.
- Die Verrohrung zwischen Becken und Technikgebäude ist zu 70 Prozent verlegt.
- Die Ausschreibung für die Photovoltaikanlage auf dem Umkleidegebäude wurde veröffentlicht.

# 3 Kosten

| Kostengruppe | Budget | Prognose |
| Becken und Beckentechnik | 3.480.000 € | 3.612.000 € |
| Technikgebäude | 1.150.000 € | 1.168.000 € |
| Außenanlagen | 640.000 € | 655.000 € |
| Planung und Nebenkosten | 930.000 € | 954.000 € |
| Gesamt | 6.200.000 € | 6.389.000 € |

Die Mehrkosten bei den Becken entstehen vor allem durch den gestiegenen Edelstahlpreis. Das Land fördert die Sanierung aus dem Schwimmbadförderprogramm mit 2,4 Millionen Euro.

# 4 Risiken

- Lieferverzug der Edelstahlbecken: Der Hersteller Aquinox hat den Liefertermin von Januar auf Februar 2026 verschoben. Verantwortlich für die Nachverfolgung ist Benedikt Kramer.
- Frost im Winter: Bei Dauerfrost können die Fliesenarbeiten im Eingangsbereich nicht ausgeführt werden; geplant ist eine Einhausung mit Beheizung.
- Fachkräftemangel beim Schwimmmeisterpersonal: Für die Saison 2026 sind erst zwei von vier Stellen besetzt. Verantwortlich ist das Hauptamt, Frau Simone Reuter.
- Kostenrisiko Altlasten: Bei den Erdarbeiten für das Technikgebäude wurde teerhaltiger Asphalt gefunden; die Entsorgung kostet voraussichtlich 38.000 Euro zusätzlich.

# 5 Nächste Schritte

- Vergabe der Photovoltaikanlage im Bauausschuss am 11. November 2025.
- Baustellenbegehung mit dem Gemeinderat am 25. Oktober 2025 um 10 Uhr.
- Richtfest des Technikgebäudes im Dezember 2025.
"""

GESCHAEFTSBERICHT = """
= Geschäftsbericht 2024 der Wohnungsgenossenschaft Talblick eG

Wohnungsgenossenschaft Talblick eG · Am Talblick 30 · Sitz: Neustadt an der Ilme · Genossenschaftsregister beim Amtsgericht Göttingen

# Vorwort des Vorstands

Liebe Mitglieder, sehr geehrte Damen und Herren,

das Geschäftsjahr 2024 stand für unsere Genossenschaft im Zeichen von drei großen Aufgaben: der energetischen Modernisierung unseres Bestands, der Fertigstellung des Neubaus am Brunnenweg und der Bewältigung deutlich gestiegener Bau- und Finanzierungskosten. Dass wir alle drei Aufgaben gemeistert und dabei einen Jahresüberschuss erzielt haben, verdanken wir dem Vertrauen unserer Mitglieder, der Arbeit unserer Beschäftigten und der guten Zusammenarbeit mit dem Aufsichtsrat.

Unser Grundsatz bleibt unverändert: Wir wollen guten und bezahlbaren Wohnraum für unsere Mitglieder bieten, und zwar dauerhaft. Die durchschnittliche Nettokaltmiete in unserem Bestand lag Ende 2024 bei 6,42 Euro je Quadratmeter und damit rund 22 Prozent unter dem örtlichen Mietspiegel. Diesen Abstand wollen wir halten, auch wenn die Modernisierung unserer Häuser Geld kostet.

Im Jahr 2024 haben wir 94 Wohnungen energetisch modernisiert und 36 neue Wohnungen fertiggestellt. Gleichzeitig haben wir die Instandhaltung nicht vernachlässigt: Mit 4,7 Millionen Euro haben wir so viel in die laufende Instandhaltung investiert wie nie zuvor.

Wir danken allen, die dazu beigetragen haben, und freuen uns auf die Vertreterversammlung am 26. Juni 2025.

Ihr Vorstand
Sandra Wöllner (Vorstandsvorsitzende) · Jens-Peter Hagedorn (Vorstand Technik) · Aylin Demirtaş (Vorstand Finanzen)

# Das Jahr 2024 im Rückblick

Januar: Die Genossenschaft stellt ihren Klimapfad 2040 in der Vertreterversammlung vor. Er sieht vor, bis 2030 die Hälfte der Wohnungen auf erneuerbare Wärme umzustellen.

Februar: Im Lindenring beginnen die Gerüstarbeiten für die Modernisierung der Häuser 2 bis 16. Für die Mitglieder wird ein Baubüro im Erdgeschoss des Hauses Lindenring 8 eingerichtet, das montags und mittwochs geöffnet ist.

März: Die Genossenschaft erhält den Förderbescheid der Bundesförderung für effiziente Gebäude über 2,9 Millionen Euro für den Lindenring.

April: Aylin Demirtaş tritt ihr Amt als Vorstand Finanzen an. Beim Frühjahrsputz in den Quartieren sammeln 230 Mitglieder an einem Samstag Müll und pflanzen 40 Obstbäume.

Mai: Der Bau- und Technikausschuss des Aufsichtsrats besichtigt den Rohbau am Brunnenweg. Im Quartier Auf der Hardt werden die Spielplätze erneuert.

Juni: Die Vertreterversammlung stellt den Jahresabschluss 2023 fest und beschließt eine Dividende von 3 Prozent. Frau Erika Stahlberg scheidet aus dem Aufsichtsrat aus.

Juli: Das Sommerfest im Lindenring feiert mit rund 900 Gästen das 103-jährige Bestehen der Genossenschaft. Der Erlös der Tombola von 4.200 Euro geht an die Tafel Neustadt.

August: Ein Starkregen setzt 23 Keller in der Eisenbahnersiedlung unter Wasser. Die Genossenschaft lässt daraufhin an allen Häusern der Siedlung Rückstauklappen einbauen.

September: Die Mitgliederbefragung beginnt. Gleichzeitig startet das neue Mitgliederportal im Testbetrieb.

Oktober: Die Wohnungsabnahme wird auf Tablets umgestellt. Die Photovoltaikanlagen im Lindenring gehen ans Netz.

November: Die ersten Mitglieder ziehen in die Neubauwohnungen am Brunnenweg ein. Die Schlüsselübergabe feiert die Genossenschaft mit einem Nachbarschaftsfest.

Dezember: Der Aufsichtsrat beschließt den Wirtschaftsplan 2025 mit Investitionen von 13,5 Millionen Euro.

# 1 Die Genossenschaft im Überblick

Die Wohnungsgenossenschaft Talblick eG wurde 1921 von Eisenbahnern und Handwerkern gegründet, die in der Nachkriegszeit keine bezahlbare Wohnung fanden. Heute ist sie mit 2.318 Wohnungen der zweitgrößte Vermieter in Neustadt an der Ilme und den umliegenden Gemeinden. Zum Bestand gehören außerdem 41 Gewerbeeinheiten, 786 Garagen und Stellplätze sowie zwei Gästewohnungen, die Mitglieder für ihre Besucher mieten können.

Die Genossenschaft hatte zum 31. Dezember 2024 insgesamt 3.164 Mitglieder, 57 mehr als ein Jahr zuvor. Jedes Mitglied hält mindestens einen Pflichtanteil von 300 Euro; wer eine Wohnung anmietet, zeichnet zusätzlich wohnungsbezogene Anteile, je nach Wohnungsgröße zwischen vier und acht Anteilen. Das Geschäftsguthaben der Mitglieder betrug am Jahresende 5,86 Millionen Euro.

Die Genossenschaft beschäftigte im Jahresdurchschnitt 38 Mitarbeiterinnen und Mitarbeiter, davon sieben in Teilzeit, sowie drei Auszubildende zur Immobilienkauffrau beziehungsweise zum Immobilienkaufmann. Im Regiebetrieb arbeiten acht Handwerker, die kleinere Reparaturen in den Wohnungen selbst ausführen.

## 1.1 Organe

Der Aufsichtsrat besteht aus neun Mitgliedern. Vorsitzender des Aufsichtsrats ist seit 2019 Dr. Harald Wendt, Richter am Landgericht im Ruhestand. Der Aufsichtsrat trat im Berichtsjahr zu sechs Sitzungen zusammen, davon vier gemeinsam mit dem Vorstand. Die Vertreterversammlung besteht aus 62 gewählten Vertreterinnen und Vertretern; die nächste Wahl zur Vertreterversammlung findet im Herbst 2025 statt.

Der Vorstand besteht aus drei hauptamtlichen Mitgliedern. Aylin Demirtaş wurde zum 1. April 2024 als Vorstand Finanzen bestellt; sie folgte auf Wilfried Rasche, der nach 17 Jahren im Vorstand in den Ruhestand getreten ist.

# 2 Wohnungsbestand und Vermietung

Der Wohnungsbestand verteilt sich auf 212 Gebäude in elf Quartieren. Die meisten Wohnungen stammen aus den Jahren 1950 bis 1975. Die durchschnittliche Wohnungsgröße beträgt 61 Quadratmeter; fast die Hälfte der Wohnungen hat zwei Zimmer. Der Anteil barrierearmer Wohnungen ist durch den Neubau und durch Umbauten im Bestand auf 14 Prozent gestiegen.

## 2.1 Leerstand und Fluktuation

Die Leerstandsquote lag zum Jahresende bei 1,3 Prozent; sie ist fast ausschließlich durch Modernisierungen bedingt. Marktbedingten Leerstand gibt es nicht: Auf jede frei werdende Wohnung kamen im Durchschnitt 11 Bewerbungen von Mitgliedern. Die Fluktuationsrate, also der Anteil der Wohnungen, bei denen das Mietverhältnis im Laufe des Jahres endete, sank von 7,9 Prozent im Jahr 2023 auf 6,8 Prozent im Jahr 2024.

Die Warteliste für Wohnungen umfasste am Jahresende 1.240 Haushalte. Besonders gefragt sind kleine, barrierearme Wohnungen für ältere Mitglieder und große Wohnungen mit vier oder mehr Zimmern für Familien.

Wohnungen werden nach einer Vergaberichtlinie vergeben, die der Aufsichtsrat im Jahr 2022 beschlossen hat. Berücksichtigt werden die Dauer der Mitgliedschaft, die Dringlichkeit des Wohnungswechsels und die passende Wohnungsgröße. Mitglieder, die aus einer großen in eine kleinere Wohnung der Genossenschaft umziehen, behalten ihre bisherige Quadratmetermiete; im Jahr 2024 haben 19 Haushalte dieses Angebot genutzt.

## 2.2 Mieten

Die durchschnittliche Nettokaltmiete stieg im Jahr 2024 um 2,6 Prozent auf 6,42 Euro je Quadratmeter. Mieterhöhungen nach Modernisierung hat die Genossenschaft auf höchstens 1,50 Euro je Quadratmeter begrenzt, obwohl das Gesetz bis zu 3,00 Euro zulässt. Im Neubau am Brunnenweg beträgt die Nettokaltmiete 9,80 Euro je Quadratmeter für die frei finanzierten und 6,10 Euro je Quadratmeter für die öffentlich geförderten Wohnungen.

Die Mietrückstände betrugen zum Jahresende 86.000 Euro und damit 0,6 Prozent der Jahressollmiete. Unsere Sozialberatung hat im Berichtsjahr 74 Haushalte in finanziellen Schwierigkeiten begleitet; in keinem Fall kam es zu einer Räumung.

# 3 Modernisierung und Neubau

## 3.1 Energetische Modernisierung

Im Rahmen unseres Klimapfads wollen wir den Wohnungsbestand bis 2040 klimaneutral machen. Im Jahr 2024 wurden die Häuser Lindenring 2 bis 16 mit zusammen 94 Wohnungen modernisiert. Die Fassaden und Kellerdecken wurden gedämmt, die Fenster erneuert und die Gasetagenheizungen durch eine zentrale Wärmepumpenanlage mit Spitzenlastkessel ersetzt. Auf den Dächern wurden Photovoltaikanlagen mit zusammen 186 kWp installiert, deren Strom als Mieterstrom angeboten wird. Bis Jahresende haben sich 61 Prozent der Haushalte im Lindenring für den Mieterstrom entschieden.

Der Endenergieverbrauch der modernisierten Häuser sinkt nach den Berechnungen unseres Energieberaters von 168 auf 54 Kilowattstunden je Quadratmeter und Jahr. Die Investition für den Lindenring betrug 11,2 Millionen Euro, davon wurden 2,9 Millionen Euro durch Zuschüsse der Bundesförderung für effiziente Gebäude gedeckt.

Die CO2-Emissionen des gesamten Bestands sanken im Jahr 2024 auf 21,4 Kilogramm je Quadratmeter Wohnfläche; im Jahr 2020 waren es noch 29,8 Kilogramm.

## 3.2 Neubau Brunnenweg

Am Brunnenweg wurde im November 2024 das neue Wohnquartier mit 36 Wohnungen, einer Kindertagesstätte für 50 Kinder und einem Nachbarschaftstreff fertiggestellt. 14 der 36 Wohnungen sind öffentlich gefördert und an Haushalte mit Wohnberechtigungsschein vermietet. Das Gebäude ist in Holzhybridbauweise errichtet und erreicht den Standard Effizienzhaus 40. Die Gesamtkosten betrugen 14,6 Millionen Euro und lagen damit 4 Prozent über der ursprünglichen Planung.

Die Kindertagesstätte wird von der Arbeiterwohlfahrt betrieben und hat den Betrieb am 6. Januar 2025 aufgenommen.

## 3.3 Instandhaltung

Für die laufende Instandhaltung wurden 4,7 Millionen Euro aufgewendet, das entspricht 32,50 Euro je Quadratmeter Wohnfläche. Schwerpunkte waren die Erneuerung von 18 Aufzügen, die Sanierung von Balkonen im Quartier Am Sonnenhang und der Austausch von Strangleitungen in 120 Wohnungen. Hinzu kamen 6.900 Kleinreparaturen, von denen der Regiebetrieb rund zwei Drittel selbst erledigte.

# 4 Wirtschaftliche Lage

## 4.1 Ertragslage

Die Genossenschaft schließt das Geschäftsjahr 2024 mit einem Jahresüberschuss von 2,14 Millionen Euro ab; im Vorjahr waren es 2,61 Millionen Euro. Der Rückgang ist vor allem auf die höheren Zinsaufwendungen und die gestiegenen Instandhaltungskosten zurückzuführen.

Die wichtigsten Kennzahlen im Vergleich:

```
Kennzahl                                   2023          2024
Umsatzerlöse aus der Hausbewirtschaftung   17,9 Mio. €   18,6 Mio. €
Instandhaltungsaufwand                      4,1 Mio. €    4,7 Mio. €
Zinsaufwand                                 2,3 Mio. €    2,8 Mio. €
Jahresüberschuss                            2,61 Mio. €   2,14 Mio. €
Eigenkapitalquote                           38,2 %        36,9 %
Bilanzsumme                               141,5 Mio. €  152,3 Mio. €
```

## 4.2 Finanzierung

Die Investitionen wurden aus Eigenmitteln, Fördermitteln und langfristigen Darlehen finanziert. Im Berichtsjahr wurden neue Darlehen über 16,8 Millionen Euro aufgenommen, überwiegend zinsverbilligte Förderdarlehen der KfW und der Landesförderbank. Der durchschnittliche Zinssatz aller Darlehen stieg von 1,9 auf 2,2 Prozent. Alle Darlehen sind langfristig gesichert; das Zinsänderungsrisiko ist für 86 Prozent des Darlehensbestands für mindestens zehn Jahre ausgeschlossen.

Die Spareinrichtung der Genossenschaft, mit der Mitglieder ihr Geld bei der Genossenschaft anlegen können, verwaltete zum Jahresende Spareinlagen von 9,4 Millionen Euro.

## 4.3 Verwendung des Bilanzgewinns

Vorstand und Aufsichtsrat schlagen der Vertreterversammlung vor, auf die Geschäftsguthaben eine Dividende von 3 Prozent auszuschütten und den verbleibenden Bilanzgewinn den anderen Ergebnisrücklagen zuzuführen.

# 5 Mitglieder und Nachbarschaft

Genossenschaftliches Wohnen heißt für uns mehr als ein Dach über dem Kopf. In unseren drei Nachbarschaftstreffs fanden im Jahr 2024 über 400 Veranstaltungen statt, von der Hausaufgabenhilfe bis zum Seniorenfrühstück. Die Treffs werden von 85 ehrenamtlichen Mitgliedern getragen und von unserer Sozialarbeiterin Friederike Lange koordiniert.

Gemeinsam mit der Nachbarschaftshilfe Neustadt bieten wir älteren Mitgliedern eine Wohnberatung an, damit sie möglichst lange in ihrer Wohnung bleiben können. Im Jahr 2024 wurden in 47 Wohnungen Badewannen gegen bodengleiche Duschen getauscht; die Genossenschaft trägt dabei die Hälfte der Kosten.

Die Mitgliederbefragung im Herbst 2024 hatte eine Rücklaufquote von 41 Prozent. 87 Prozent der Befragten sind mit ihrer Wohnung zufrieden oder sehr zufrieden. Verbesserungsbedarf sehen die Mitglieder vor allem bei der Erreichbarkeit der Geschäftsstelle und bei der Sauberkeit der Müllplätze. Seit Januar 2025 ist die Geschäftsstelle deshalb auch donnerstags bis 18 Uhr geöffnet.

# 6 Risiken und Ausblick

## 6.1 Risiken

Das wichtigste Risiko für die Genossenschaft sind die weiter steigenden Baukosten, die die Modernisierung nach dem Klimapfad verteuern. Hinzu kommen das gestiegene Zinsniveau bei Anschlussfinanzierungen ab 2027 und der Fachkräftemangel im Handwerk, der Instandhaltungsarbeiten verzögert. Ein Risiko aus Mietausfällen sieht der Vorstand wegen der anhaltend hohen Nachfrage derzeit nicht.

Das Risikomanagement der Genossenschaft wird jährlich vom Prüfungsverband überprüft. Die gesetzliche Prüfung für das Geschäftsjahr 2023 durch den Verband der Wohnungswirtschaft Niedersachsen Bremen ergab keine Beanstandungen.

## 6.2 Ausblick auf 2025

Für das Jahr 2025 plant die Genossenschaft Investitionen von 13,5 Millionen Euro. Im Mittelpunkt steht die Modernisierung des Quartiers Am Sonnenhang mit 112 Wohnungen, die im März 2025 beginnt und bis 2027 dauern soll. Außerdem soll ein Grundstück an der Ilmewiese für einen weiteren Neubau mit etwa 45 Wohnungen erworben werden; der Kaufvertrag soll im zweiten Quartal 2025 unterzeichnet werden.

Der Vorstand erwartet für 2025 einen Jahresüberschuss zwischen 1,6 und 1,9 Millionen Euro. Die durchschnittliche Nettokaltmiete wird voraussichtlich auf 6,60 Euro je Quadratmeter steigen.

# 7 Nachhaltigkeit

## 7.1 Energie und Klima

Neben der Modernisierung des Gebäudebestands setzt die Genossenschaft auf die eigene Erzeugung erneuerbarer Energie. Ende 2024 waren auf den Dächern der Genossenschaft Photovoltaikanlagen mit zusammen 612 kWp in Betrieb, die im Jahr rund 570.000 Kilowattstunden Strom erzeugen. Etwa 43 Prozent davon werden als Mieterstrom direkt in den Häusern verbraucht, der Rest wird in das Netz eingespeist. Der Mieterstromtarif der Genossenschaft lag 2024 bei 27,9 Cent je Kilowattstunde und damit unter dem Grundversorgungstarif der Stadtwerke Neustadt.

Die Heizzentralen der Genossenschaft werden seit 2023 fernüberwacht. Durch die Optimierung der Heizkurven und den hydraulischen Abgleich in 640 Wohnungen sank der witterungsbereinigte Wärmeverbrauch im nicht modernisierten Bestand um 6 Prozent. Für das Quartier Am Sonnenhang wird derzeit geprüft, ob ein Anschluss an das geplante Nahwärmenetz der Stadtwerke günstiger ist als eine eigene Wärmepumpenanlage.

## 7.2 Mobilität

An acht Standorten bietet die Genossenschaft gemeinsam mit dem Carsharing-Verein Ilmetal insgesamt elf Carsharing-Fahrzeuge an, davon sechs Elektroautos. In den Tiefgaragen am Brunnenweg und im Lindenring sind 48 Stellplätze mit Ladepunkten ausgestattet. Für Lastenräder wurden im Jahr 2024 vier abschließbare Boxen aufgestellt, die Mitglieder kostenlos nutzen können.

## 7.3 Grünflächen und Artenvielfalt

Die Genossenschaft pflegt rund 18 Hektar Grün- und Freiflächen. Im Jahr 2024 wurden auf 2,3 Hektar Rasenflächen in Blühwiesen umgewandelt, die nur noch zweimal im Jahr gemäht werden. Gemeinsam mit dem Naturschutzbund wurden 60 Nistkästen für Mauersegler und Spatzen an den modernisierten Fassaden im Lindenring angebracht. Regenwasser von den Dächern am Brunnenweg wird in einer Zisterne mit 40 Kubikmetern gesammelt und für die Bewässerung der Mietergärten verwendet.

# 8 Personal und Organisation

Die Zahl der Beschäftigten ist gegenüber dem Vorjahr um zwei gestiegen. Neu geschaffen wurden eine Stelle für das Energiemanagement und eine zweite Stelle in der Sozialberatung. Die Krankheitsquote lag bei 5,1 Prozent. Im Berichtsjahr haben die Beschäftigten insgesamt 412 Tage an Fortbildungen teilgenommen, unter anderem zum neuen Gebäudeenergiegesetz und zur Digitalisierung der Wohnungsabnahme.

Seit Oktober 2024 werden Wohnungsabnahmen und Übergaben mit Tablets protokolliert. Die Mitglieder erhalten das Übergabeprotokoll unmittelbar per E-Mail. Das neue Mitgliederportal, über das Schäden gemeldet und Dokumente abgerufen werden können, haben bis Jahresende 1.130 Haushalte freigeschaltet.

Die Genossenschaft ist tarifgebunden und wendet den Tarifvertrag der Wohnungs- und Immobilienwirtschaft an. Alle Beschäftigten können an zwei Tagen pro Woche mobil arbeiten, soweit ihre Aufgaben es zulassen. Der Betriebsrat besteht aus drei Mitgliedern; Vorsitzende ist Marion Albers.

Die Ausbildung hat bei der Genossenschaft eine lange Tradition. Seit 1985 wurden 64 junge Menschen zu Immobilienkaufleuten ausgebildet, von denen 21 heute noch bei der Genossenschaft arbeiten. Im Sommer 2024 haben zwei Auszubildende ihre Prüfung vor der Industrie- und Handelskammer abgeschlossen, beide mit der Note gut, und wurden unbefristet übernommen. Für das Ausbildungsjahr 2025 wurden drei neue Ausbildungsverträge geschlossen, erstmals auch für den Beruf Elektronikerin beziehungsweise Elektroniker für Energie- und Gebäudetechnik im Regiebetrieb.

Die Geschäftsstelle Am Talblick 30 ist montags bis freitags von 8 bis 12 Uhr und dienstags von 14 bis 17 Uhr geöffnet, seit Januar 2025 zusätzlich donnerstags von 14 bis 18 Uhr. Außerhalb der Öffnungszeiten nimmt ein Notdienst Meldungen zu Rohrbrüchen, Heizungsausfällen und Stromausfällen entgegen. Im Jahr 2024 gingen beim Notdienst 1.870 Meldungen ein, davon betrafen 38 Prozent Heizung und Warmwasser. Die durchschnittliche Zeit bis zum Eintreffen eines Handwerkers lag bei Notfällen unter zwei Stunden.

Die Verwaltungskosten je Wohnung lagen 2024 bei 412 Euro und damit im Mittelfeld vergleichbarer Genossenschaften in Niedersachsen.

Für die Sicherheit in den Häusern arbeitet die Genossenschaft mit der Polizei und der Feuerwehr zusammen. Im Jahr 2024 wurden in allen Treppenhäusern die Rauchwarnmelder geprüft und 310 Geräte ersetzt, deren Lebensdauer abgelaufen war. Kellerabteile und Dachböden werden zweimal im Jahr begangen, damit dort keine brennbaren Gegenstände gelagert werden, die Fluchtwege versperren.

# 9 Die Quartiere

## 9.1 Lindenring

Der Lindenring im Westen der Stadt ist mit 486 Wohnungen das größte Quartier der Genossenschaft. Die Häuser wurden zwischen 1956 und 1962 gebaut und prägen mit ihren roten Ziegeldächern das Stadtbild. Nach der Modernisierung der Häuser Lindenring 2 bis 16 folgen ab 2026 die Häuser 18 bis 40. Im Quartier gibt es einen Nachbarschaftstreff, einen Bäcker und eine Hausarztpraxis in genossenschaftlichen Gewerberäumen.

## 9.2 Am Sonnenhang

Das Quartier Am Sonnenhang wurde in den Jahren 1971 bis 1975 mit 112 Wohnungen in vier achtgeschossigen Häusern gebaut. Die Häuser haben Aufzüge, aber noch die ursprünglichen Balkone und Fenster. Die Modernisierung ab März 2025 umfasst neue Fassaden, neue Balkone, den barrierefreien Umbau der Hauseingänge und eine neue Wärmeversorgung. Während der Bauarbeiten bleiben die Mitglieder in ihren Wohnungen; für besonders laute Arbeiten stehen zwei Ausweichwohnungen zur Verfügung.

## 9.3 Brunnenweg

Das neue Quartier am Brunnenweg ist das erste Neubauprojekt der Genossenschaft seit 2008. Die 36 Wohnungen haben zwischen 45 und 104 Quadratmeter. Der Nachbarschaftstreff im Erdgeschoss wird gemeinsam mit der Kindertagesstätte genutzt. Die Nachfrage war groß: Auf die 36 Wohnungen kamen 410 Bewerbungen.

## 9.4 Weitere Quartiere

Zu den kleineren Quartieren gehören unter anderem die Eisenbahnersiedlung an der Bahnhofstraße mit 94 Wohnungen aus den Jahren 1924 bis 1929, die unter Denkmalschutz steht, und die Siedlung Auf der Hardt in der Nachbargemeinde Dassel mit 58 Wohnungen. In der Eisenbahnersiedlung werden die Holzfenster nach Vorgaben der Denkmalpflege schrittweise aufgearbeitet statt ersetzt.

# 10 Jahresabschluss in Kürze

Die Bilanzsumme stieg im Geschäftsjahr 2024 um 10,8 Millionen Euro auf 152,3 Millionen Euro. Auf der Aktivseite dominiert das Anlagevermögen mit 141,9 Millionen Euro, davon entfallen 137,4 Millionen Euro auf Grundstücke mit Wohnbauten. Die flüssigen Mittel betrugen zum Stichtag 6,1 Millionen Euro.

Auf der Passivseite stehen Eigenkapital von 56,2 Millionen Euro und Verbindlichkeiten gegenüber Kreditinstituten von 84,7 Millionen Euro. Die Eigenkapitalquote sank wegen der Neubauinvestitionen leicht auf 36,9 Prozent. Der Cashflow aus laufender Geschäftstätigkeit betrug 5,9 Millionen Euro und reichte aus, um die planmäßigen Tilgungen von 3,4 Millionen Euro zu leisten.

Der vollständige Jahresabschluss mit Lagebericht liegt ab dem 2. Juni 2025 in der Geschäftsstelle zur Einsicht aus und kann von Mitgliedern im Mitgliederportal abgerufen werden.
# Erläuterung einiger Begriffe

Geschäftsguthaben: die Summe der eingezahlten Genossenschaftsanteile eines Mitglieds. Es wird beim Ausscheiden aus der Genossenschaft zurückgezahlt, frühestens nach Feststellung des Jahresabschlusses für das Geschäftsjahr des Ausscheidens.

Nettokaltmiete: die Miete ohne Betriebs- und Heizkosten.

Fluktuationsrate: der Anteil der Wohnungen, bei denen im Geschäftsjahr ein Mieterwechsel stattfand.

Mieterstrom: Strom, der auf dem Dach oder in der Nähe eines Wohngebäudes erzeugt und ohne Nutzung des öffentlichen Netzes an die Bewohnerinnen und Bewohner geliefert wird.

Regiebetrieb: die eigenen Handwerker der Genossenschaft.

Vertreterversammlung: das oberste Organ der Genossenschaft, das an die Stelle der Generalversammlung tritt, wenn eine Genossenschaft mehr als 1.500 Mitglieder hat. Sie stellt den Jahresabschluss fest, beschließt über die Verwendung des Bilanzgewinns und wählt den Aufsichtsrat.


# 11 Bericht des Aufsichtsrats

Der Aufsichtsrat hat im Geschäftsjahr 2024 die ihm nach Gesetz und Satzung obliegenden Aufgaben wahrgenommen. Er hat den Vorstand bei der Leitung der Genossenschaft beraten und überwacht. Der Vorstand hat den Aufsichtsrat regelmäßig, zeitnah und umfassend über die Geschäftsentwicklung, die Investitionsplanung und die Risikolage unterrichtet.

Schwerpunkte der Beratungen waren die Finanzierung der Modernisierung im Lindenring, die Nachfolge im Vorstand Finanzen und die Vorbereitung des Grundstückskaufs an der Ilmewiese. Der Bau- und Technikausschuss des Aufsichtsrats besichtigte die Baustelle am Brunnenweg im Mai und im Oktober 2024.

Der Aufsichtsrat hat den Jahresabschluss 2024 und den Lagebericht geprüft und billigt sie. Er empfiehlt der Vertreterversammlung, den Jahresabschluss festzustellen, dem Vorschlag zur Verwendung des Bilanzgewinns zuzustimmen und den Vorstand zu entlasten.

Aus dem Aufsichtsrat schied im Juni 2024 turnusgemäß Frau Erika Stahlberg aus; für sie wurde Herr Okan Yilmaz, Bauingenieur, neu gewählt. Der Aufsichtsrat dankt dem Vorstand und allen Beschäftigten für ihren Einsatz.

Neustadt an der Ilme, im April 2025
Dr. Harald Wendt, Vorsitzender des Aufsichtsrats
"""

CLUBNET = """
= ClubNet 6 – Handbuch für Vereinsverwaltungen

Vereinsfux Software GmbH · Handbuchversion 6.2 · Stand: September 2025

# 1 Einleitung

ClubNet ist eine Software für die Verwaltung von Vereinen und Verbänden. Sie richtet sich an Vorstände, Geschäftsstellen und Kassenwarte, die Mitglieder, Beiträge, Termine und die Kommunikation mit ihren Mitgliedern an einem Ort verwalten möchten. ClubNet läuft im Browser; eine Installation auf dem eigenen Rechner ist nicht nötig. Die Daten werden in zwei Rechenzentren der Firma Datenhafen Nord in Hamburg und Kiel gespeichert.

Dieses Handbuch beschreibt die Version 6.2. Es erklärt zuerst die Grundbegriffe, dann die einzelnen Module und am Ende die Einstellungen, die nur Administratorinnen und Administratoren vornehmen können. Neue Funktionen gegenüber der Version 6.1 sind im Abschnitt 12 zusammengefasst.

## 1.1 Editionen

ClubNet gibt es in drei Editionen. Die Edition Basis ist für Vereine bis 150 Mitglieder kostenlos. Die Edition Plus kostet 14,90 Euro im Monat und enthält zusätzlich die Finanzbuchhaltung und das Veranstaltungsmodul. Die Edition Verband kostet 49,00 Euro im Monat und erlaubt es, mehrere Untergliederungen, etwa Abteilungen oder Ortsvereine, mit getrennten Kassen zu verwalten. Alle Preise verstehen sich zuzüglich Umsatzsteuer.

| Funktion | Basis | Plus | Verband |
| Mitgliederverwaltung | ja | ja | ja |
| Beitragseinzug per SEPA | ja | ja | ja |
| Finanzbuchhaltung | nein | ja | ja |
| Veranstaltungen und Anmeldungen | nein | ja | ja |
| Untergliederungen | nein | nein | bis zu 40 |
| Speicherplatz für Dokumente | 1 GB | 10 GB | 50 GB |
| Benutzerkonten | 3 | 10 | unbegrenzt |

## 1.2 Systemvoraussetzungen

ClubNet unterstützt die jeweils aktuelle und die vorherige Hauptversion von Firefox, Chrome, Edge und Safari. Der Internet Explorer wird nicht unterstützt. Für die mobile Nutzung gibt es die App ClubNet Mobil für Android ab Version 11 und iOS ab Version 16. Die Bildschirmauflösung sollte mindestens 1280 mal 720 Pixel betragen.

# 2 Erste Schritte

## 2.1 Anmeldung

Nach der Registrierung erhält die Vereinsadministratorin oder der Vereinsadministrator eine E-Mail mit einem Aktivierungslink, der 48 Stunden gültig ist. Beim ersten Anmelden muss ein Passwort mit mindestens 12 Zeichen vergeben werden. Die Zwei-Faktor-Authentifizierung mit einer Authenticator-App ist für Administratorkonten Pflicht und für alle anderen Konten empfohlen.

Nach fünf fehlgeschlagenen Anmeldeversuchen wird das Konto für 15 Minuten gesperrt. Ein gesperrtes Konto kann eine Administratorin oder ein Administrator unter Einstellungen > Benutzer sofort wieder freigeben.

## 2.2 Die Startseite

Die Startseite zeigt die Kennzahlen des Vereins: die Zahl der aktiven Mitglieder, die offenen Beiträge, die nächsten Termine und die Geburtstage der kommenden sieben Tage. Welche Kacheln angezeigt werden, kann jede Benutzerin und jeder Benutzer über das Zahnradsymbol selbst festlegen. Über die Suchleiste oben rechts lassen sich Mitglieder, Buchungen und Dokumente durchsuchen; die Suche beginnt ab drei eingegebenen Zeichen.

## 2.3 Daten übernehmen

Bestehende Mitgliederlisten können als CSV- oder Excel-Datei importiert werden. Der Import-Assistent ordnet die Spalten den Feldern von ClubNet zu und zeigt vor dem Import eine Vorschau mit allen erkannten Fehlern, zum Beispiel ungültigen IBANs oder doppelten Mitgliedsnummern. Eine Importdatei darf höchstens 20.000 Zeilen haben. Fehlerhafte Zeilen werden übersprungen und in einem Fehlerbericht aufgeführt, der als Datei heruntergeladen werden kann; die übrigen Zeilen werden importiert.

# 3 Mitgliederverwaltung

## 3.1 Mitglieder anlegen

Ein neues Mitglied wird über die Schaltfläche Neues Mitglied angelegt. Pflichtfelder sind Vorname, Nachname, Eintrittsdatum und Beitragsgruppe. ClubNet vergibt die Mitgliedsnummer automatisch fortlaufend; das Format der Nummer kann unter Einstellungen > Nummernkreise geändert werden, zum Beispiel auf ein Präfix mit Jahreszahl.

Zu jedem Mitglied lassen sich beliebig viele eigene Felder anlegen, etwa für die Größe des Vereinstrikots oder die Lizenznummer einer Übungsleiterin. Eigene Felder können die Typen Text, Zahl, Datum, Auswahlliste und Ja/Nein haben.

## 3.2 Familien und Haushalte

Mitglieder, die in einem Haushalt leben, können zu einer Familie verbunden werden. Für Familien kann ein gemeinsamer Familienbeitrag erhoben werden; dann wird der Beitrag nur vom Konto des Hauptmitglieds eingezogen. Post und E-Mails an eine Familie gehen ebenfalls nur an das Hauptmitglied, sofern nichts anderes eingestellt ist.

## 3.3 Austritt und Löschung

Ein Austritt wird mit dem Austrittsdatum erfasst. Das Mitglied bleibt danach noch als ehemaliges Mitglied gespeichert, damit Beitragsforderungen und Spendenbescheinigungen nachvollziehbar bleiben. Zwei Jahre nach dem Austritt schlägt ClubNet die Löschung der Daten vor; die Löschung muss von einer Administratorin oder einem Administrator bestätigt werden. Buchungen bleiben wegen der steuerlichen Aufbewahrungsfristen zehn Jahre erhalten, werden aber vom Namen getrennt.

## 3.4 Ehrungen und Jubiläen

Unter Mitglieder > Jubiläen zeigt ClubNet alle Mitglieder, die im gewählten Jahr ein Vereinsjubiläum feiern. Die Jubiläumsstufen sind ab Werk 10, 25, 40, 50 und 60 Jahre und können geändert werden. Für Ehrungen lassen sich Urkunden aus einer Vorlage erzeugen.

# 4 Beiträge und Lastschriften

## 4.1 Beitragsgruppen

Jedes Mitglied gehört zu genau einer Beitragsgruppe, etwa Erwachsene, Jugendliche, Familie oder passive Mitglieder. Für jede Beitragsgruppe werden der Betrag und der Zahlungsrhythmus festgelegt: monatlich, vierteljährlich, halbjährlich oder jährlich. Ein Wechsel der Beitragsgruppe, zum Beispiel beim 18. Geburtstag, kann automatisch erfolgen; dafür wird unter Beiträge > Regeln ein Altersgrenzwechsel eingerichtet.

## 4.2 SEPA-Lastschrift

ClubNet erzeugt SEPA-Lastschriftdateien im Format pain.008, die im Onlinebanking der Vereinsbank hochgeladen werden. Voraussetzung ist eine Gläubiger-Identifikationsnummer der Deutschen Bundesbank, die unter Einstellungen > Bankverbindung eingetragen wird. Für jedes Mitglied muss ein gültiges SEPA-Mandat mit Mandatsreferenz und Datum der Unterschrift vorliegen.

Die Vorabankündigung (Pre-Notification) verschickt ClubNet automatisch per E-Mail. Die Frist ist ab Werk auf 14 Tage vor dem Fälligkeitstermin eingestellt und kann auf bis zu einen Tag verkürzt werden, wenn dies in der Beitragsordnung geregelt ist. Erstlastschriften und Folgelastschriften unterscheidet ClubNet seit Version 6.0 nicht mehr, weil die Banken diese Unterscheidung nicht mehr verlangen.

## 4.3 Rücklastschriften

Rücklastschriften können aus dem Kontoauszug im Format CAMT.053 eingelesen werden. ClubNet ordnet sie dem Mitglied zu, setzt den Beitrag wieder auf offen und bucht die Bankgebühr auf Wunsch als Forderung gegen das Mitglied. Nach zwei Rücklastschriften in Folge wird das SEPA-Mandat automatisch gesperrt, und das Mitglied erscheint in der Liste Zahlungsprobleme.

## 4.4 Mahnwesen

Für offene Beiträge kann ClubNet Zahlungserinnerungen und Mahnungen in bis zu drei Stufen erzeugen. Die Abstände zwischen den Mahnstufen betragen ab Werk 14 Tage. Eine Mahngebühr kann je Stufe festgelegt werden; ab Werk ist keine Mahngebühr eingestellt.

## 4.5 Beitragsbefreiung und Ermäßigung

Einzelne Mitglieder können ganz oder zeitweise vom Beitrag befreit werden, etwa Ehrenmitglieder oder Mitglieder in Elternzeit. Die Befreiung wird mit Beginn und Ende erfasst; läuft sie aus, zieht ClubNet den Beitrag ab dem folgenden Fälligkeitstermin wieder ein und informiert die Geschäftsstelle per E-Mail. Ermäßigungen können als fester Betrag oder als Prozentsatz vom Beitrag der Beitragsgruppe hinterlegt werden. Für jede Befreiung und jede Ermäßigung kann ein Nachweis, zum Beispiel eine Schulbescheinigung, als Dokument angehängt werden; ClubNet erinnert auf Wunsch jedes Jahr im September daran, die Nachweise neu anzufordern.

# 5 Finanzen

Das Finanzmodul steht in den Editionen Plus und Verband zur Verfügung. Es bildet eine Einnahmen-Überschuss-Rechnung ab und trennt die vier steuerlichen Bereiche eines gemeinnützigen Vereins: ideeller Bereich, Vermögensverwaltung, Zweckbetrieb und wirtschaftlicher Geschäftsbetrieb.

## 5.1 Konten und Buchungen

Kontoauszüge werden im Format CAMT.053 oder als CSV-Datei importiert. Wiederkehrende Buchungen erkennt ClubNet nach drei gleichen Zuordnungen automatisch und schlägt sie beim nächsten Import vor. Der Kontenrahmen orientiert sich am SKR 49 für Vereine; eigene Konten können ergänzt werden.

Barkassen werden als eigene Konten geführt. Für jede Barkasse lässt sich ein Kassenbuch als PDF erzeugen. Eine Buchung in einem abgeschlossenen Monat kann nicht mehr geändert, sondern nur storniert werden.

## 5.2 Spendenbescheinigungen

ClubNet erstellt Zuwendungsbestätigungen nach dem amtlichen Muster, als Einzelbestätigung oder als Sammelbestätigung für ein Kalenderjahr. Voraussetzung ist, dass der Freistellungsbescheid des Finanzamts mit Datum und Steuernummer unter Einstellungen > Gemeinnützigkeit eingetragen ist und nicht älter als fünf Jahre ist. Für Spenden bis 300 Euro genügt steuerlich der Kontoauszug; ClubNet kann trotzdem eine Bestätigung erzeugen.

## 5.3 Jahresabschluss

Zum Jahresabschluss erzeugt ClubNet einen Kassenbericht mit Einnahmen und Ausgaben je Bereich sowie eine Vermögensübersicht. Die Kassenprüferinnen und Kassenprüfer können einen Lesezugang erhalten, mit dem sie alle Buchungen und Belege einsehen, aber nichts ändern können.

# 6 Veranstaltungen

Im Veranstaltungsmodul lassen sich Termine anlegen, zu denen sich Mitglieder und Gäste online anmelden. Für jede Veranstaltung können eine Höchstteilnehmerzahl, ein Anmeldeschluss und eine Teilnahmegebühr festgelegt werden. Ist die Veranstaltung ausgebucht, kommen weitere Anmeldungen auf eine Warteliste; sagt jemand ab, rückt die erste Person auf der Warteliste automatisch nach und erhält eine E-Mail.

Teilnahmegebühren können per Lastschrift eingezogen oder über den Zahlungsdienst PayFlux online bezahlt werden. Für Zahlungen über PayFlux fällt eine Gebühr von 1,4 Prozent zuzüglich 0,25 Euro je Zahlung an, die der Verein trägt.

Die Anmeldeseite kann in die Vereinswebsite eingebettet werden. Der dafür nötige Code steht unter Veranstaltung > Teilen. Für Übungsstunden und Trainingsgruppen gibt es eine eigene Anwesenheitsliste, die Übungsleiterinnen und Übungsleiter in der App ClubNet Mobil führen können.

## 6.1 Räume und Ressourcen

Vereinsheime, Sporthallen, Bootsplätze oder Vereinsbusse lassen sich als Ressourcen anlegen und über einen Belegungskalender buchen. Jede Ressource kann eine Buchungsregel haben, zum Beispiel eine Höchstdauer von vier Stunden oder eine Freigabe durch den Vorstand. Überschneidende Buchungen verhindert ClubNet automatisch. Für die Vermietung des Vereinsheims an Mitglieder oder Dritte kann eine Miete hinterlegt werden, die ClubNet nach der Veranstaltung als Rechnung stellt; eine Kaution wird getrennt gebucht und nach der Rückgabe des Schlüssels wieder ausgezahlt.

Belegungspläne lassen sich als PDF ausdrucken und am schwarzen Brett aushängen oder als iCal-Abonnement veröffentlichen.

# 7 Kommunikation

## 7.1 E-Mail und Serienbriefe

Aus ClubNet können E-Mails an einzelne Mitglieder, an gespeicherte Gruppen oder an alle Mitglieder verschickt werden. Je Monat sind in der Edition Basis 1.000 E-Mails enthalten, in der Edition Plus 10.000 und in der Edition Verband 50.000. Weitere E-Mails kosten 1 Euro je 1.000 Stück. Absenderadresse ist ab Werk eine Adresse der Domain clubnet-mail.de; eine eigene Vereinsdomain kann nach Einrichtung der SPF- und DKIM-Einträge verwendet werden.

Für Mitglieder ohne E-Mail-Adresse erzeugt ClubNet Serienbriefe als PDF oder als Word-Datei. Der Versand per Post über den Druckdienst kostet 0,95 Euro je Brief mit bis zu drei Seiten.

## 7.2 Mitgliederportal

Im Mitgliederportal können Mitglieder ihre eigenen Daten einsehen und Adresse, Telefonnummer und Bankverbindung selbst ändern. Änderungen der Bankverbindung müssen von der Geschäftsstelle bestätigt werden, bevor sie wirksam werden. Im Portal sehen die Mitglieder außerdem ihre Beitragsrechnungen, ihre Spendenbescheinigungen und die für sie freigegebenen Dokumente wie Protokolle oder Satzung.

## 7.3 Newsletter und Einwilligungen

Für Newsletter verlangt ClubNet eine ausdrückliche Einwilligung, die im Mitgliederportal oder auf dem Beitrittsformular erteilt wird. Jede Einwilligung wird mit Datum und Quelle gespeichert. Mitglieder, die keine Einwilligung erteilt haben, erhalten nur E-Mails, die für die Mitgliedschaft notwendig sind, zum Beispiel Einladungen zur Mitgliederversammlung oder die Vorabankündigung einer Lastschrift. Jeder Newsletter enthält am Ende einen Abmeldelink; eine Abmeldung wirkt sofort und wird im Änderungsprotokoll vermerkt. Die Öffnungsrate eines Newsletters misst ClubNet nur, wenn dies in den Einstellungen ausdrücklich eingeschaltet wurde; ab Werk ist die Messung ausgeschaltet.

Geburtstagsgrüße kann ClubNet automatisch am Geburtstag um 8 Uhr morgens verschicken. Dafür wird eine Vorlage je Altersgruppe angelegt, etwa eine für Kinder und Jugendliche und eine für Erwachsene.

# 8 Rollen und Berechtigungen

ClubNet unterscheidet die Rollen Administrator, Vorstand, Kassenwart, Geschäftsstelle, Übungsleitung und Lesezugang. Jede Rolle hat einen festen Satz von Berechtigungen, der in der Edition Verband für jede Untergliederung einzeln vergeben werden kann.

| Rolle | Mitglieder bearbeiten | Finanzen buchen | Einstellungen ändern |
| Administrator | ja | ja | ja |
| Vorstand | ja | nein | nein |
| Kassenwart | nur Bankdaten | ja | nein |
| Geschäftsstelle | ja | nein | nein |
| Übungsleitung | nein | nein | nein |
| Lesezugang | nein | nein | nein |

Übungsleiterinnen und Übungsleiter sehen nur die Mitglieder ihrer eigenen Gruppen und von diesen nur Name, Geburtsdatum und Notfallkontakt. Alle Änderungen an Mitgliederdaten werden im Änderungsprotokoll mit Datum, Uhrzeit und Benutzerkonto festgehalten; das Protokoll wird drei Jahre aufbewahrt.

## 8.1 Untergliederungen in der Edition Verband

In der Edition Verband wird jede Abteilung oder jeder Ortsverein als Untergliederung angelegt. Eine Untergliederung hat eine eigene Mitgliederliste, eigene Beitragsgruppen und auf Wunsch eine eigene Kasse mit eigenem Bankkonto. Ein Mitglied kann mehreren Untergliederungen gleichzeitig angehören, zum Beispiel der Fußball- und der Tennisabteilung eines Sportvereins; ClubNet führt es trotzdem nur einmal und zieht die Beiträge in einer gemeinsamen Lastschrift ein.

Der Hauptverein sieht die Zahlen aller Untergliederungen in einer zusammengefassten Übersicht. Die Abteilungsleitungen sehen dagegen nur die Mitglieder und Buchungen ihrer eigenen Untergliederung. Umlagen, die eine Untergliederung an den Hauptverein abführt, können als wiederkehrende Umbuchung eingerichtet werden.

## 8.2 Dokumentenablage

Zu jedem Mitglied, jeder Buchung und jeder Veranstaltung können Dokumente abgelegt werden, etwa eingescannte Beitrittserklärungen, Belege oder Teilnehmerlisten. Erlaubt sind PDF-Dateien, Bilder im Format JPEG oder PNG sowie Word- und Excel-Dateien bis zu einer Größe von 25 MB je Datei. Zusätzlich gibt es eine allgemeine Ablage mit Ordnern, in der der Vorstand Protokolle, die Satzung oder Formulare speichert. Für jeden Ordner wird festgelegt, welche Rollen ihn sehen und ob er im Mitgliederportal freigegeben ist.

Dokumente werden beim Hochladen auf Schadsoftware geprüft. Gelöschte Dokumente liegen 30 Tage im Papierkorb und können in dieser Zeit wiederhergestellt werden.

# 9 Datenschutz und Datensicherheit

Die Vereinsfux Software GmbH verarbeitet die Daten im Auftrag des Vereins. Der Vertrag zur Auftragsverarbeitung nach Artikel 28 DSGVO wird bei der Registrierung elektronisch abgeschlossen und kann unter Einstellungen > Verträge jederzeit heruntergeladen werden.

Alle Verbindungen sind mit TLS 1.3 verschlüsselt. Die Datenbanken werden zusätzlich verschlüsselt gespeichert. Eine Datensicherung erfolgt stündlich; die Sicherungen werden 30 Tage aufbewahrt und im jeweils anderen Rechenzentrum gespeichert. Ein Verein kann jederzeit eine vollständige Kopie seiner Daten als ZIP-Datei mit CSV-Dateien und Belegen exportieren.

Auskunftsersuchen von Mitgliedern nach Artikel 15 DSGVO unterstützt ClubNet mit einer Datenauskunft auf Knopfdruck: Sie enthält alle zu einem Mitglied gespeicherten Daten, Buchungen und Einwilligungen als PDF.

# 10 Schnittstellen

ClubNet bietet eine REST-Schnittstelle für die Editionen Plus und Verband. Der Zugriff erfolgt mit API-Schlüsseln, die unter Einstellungen > Schnittstellen erzeugt werden; jeder Schlüssel kann auf Lesezugriff beschränkt werden. Je Schlüssel sind höchstens 600 Anfragen pro Minute erlaubt. Die Dokumentation der Schnittstelle ist unter developer.clubnet.example abrufbar.

Für die Buchhaltung gibt es einen Export im DATEV-Format, damit Steuerberaterinnen und Steuerberater die Buchungen übernehmen können. Kalender lassen sich als iCal-Abonnement in Outlook, Google Kalender oder Apple Kalender einbinden. Ein Verbandsmeldewesen für die Bestandserhebungen der Landessportbünde ist in Vorbereitung.

# 11 Fehlerbehebung und Support

## 11.1 Häufige Probleme

Wenn eine SEPA-Datei von der Bank abgelehnt wird, liegt es meistens an einer fehlenden Gläubiger-Identifikationsnummer oder an einem Mandat ohne Unterschriftsdatum. ClubNet prüft die Datei vor dem Download und zeigt die betroffenen Mitglieder an.

Kommen E-Mails bei Mitgliedern nicht an, prüfen Sie unter Kommunikation > Versandprotokoll, ob die Adresse als unzustellbar markiert ist. Adressen, an die dreimal in Folge nicht zugestellt werden konnte, sperrt ClubNet für den weiteren Versand.

Werden beim Import Umlaute falsch dargestellt, wurde die Datei wahrscheinlich nicht im Format UTF-8 gespeichert. Der Import-Assistent kann die Zeichenkodierung Windows-1252 umwandeln, wenn sie beim Import ausgewählt wird.

## 11.2 Support

Der Support ist per E-Mail und über das Hilfeformular in ClubNet erreichbar. In der Edition Basis wird eine Anfrage innerhalb von drei Werktagen beantwortet, in den Editionen Plus und Verband innerhalb eines Werktags. Telefonischer Support ist nur in der Edition Verband enthalten, montags bis freitags von 9 bis 16 Uhr. Geplante Wartungsarbeiten finden dienstags zwischen 22 und 24 Uhr statt und werden eine Woche vorher auf der Statusseite angekündigt.

# 12 Neu in Version 6.2

- Das Mahnwesen kann jetzt für jede Beitragsgruppe eigene Mahnstufen haben.
- Die App ClubNet Mobil unterstützt die Anwesenheitsliste auch ohne Internetverbindung; die Daten werden beim nächsten Verbindungsaufbau übertragen.
- Spendenbescheinigungen können digital signiert per E-Mail verschickt werden.
- Der Import-Assistent erkennt doppelte Mitglieder jetzt auch bei abweichender Schreibweise des Namens.
- Die Edition Verband erlaubt bis zu 40 Untergliederungen statt bisher 25.

Die Version 6.2 wurde am 1. September 2025 veröffentlicht. Die Version 6.0 wird ab dem 31. März 2026 nicht mehr unterstützt.

# 13 Umstieg von ClubNet 5

Vereine, die noch ClubNet 5 als installierte Desktop-Version nutzen, können ihre Daten mit dem Umzugsassistenten in die Browser-Version übernehmen. Der Assistent liest die Datensicherung von ClubNet 5 (Dateiendung .cn5) ein und überträgt Mitglieder, Beitragsgruppen, SEPA-Mandate, Buchungen der letzten zehn Jahre und Dokumente. Nicht übernommen werden die Druckvorlagen von ClubNet 5, weil sich das Vorlagenformat geändert hat; sie müssen in ClubNet 6 neu angelegt werden.

Vor dem Umstieg empfiehlt Vereinsfux, in ClubNet 5 den Jahresabschluss des letzten Geschäftsjahres durchzuführen und alle offenen Lastschriften abzuschließen. Der Umzug dauert je nach Datenmenge zwischen zehn Minuten und zwei Stunden. Während des Umzugs kann ClubNet 5 weiter geöffnet bleiben, Änderungen nach dem Erstellen der Datensicherung werden aber nicht übernommen.

Der Support für ClubNet 5 endete am 31. Dezember 2024. Sicherheitsupdates für die Desktop-Version werden seitdem nicht mehr bereitgestellt. Vereine, die bis zum 30. Juni 2025 umgestiegen sind, erhielten die Edition Plus für das erste Jahr zum Preis der Edition Basis.

## 13.1 Unterschiede zur Desktop-Version

Die wichtigsten Unterschiede zwischen ClubNet 5 und ClubNet 6 sind:

- ClubNet 6 läuft im Browser und benötigt keine Installation und keine lokale Datensicherung.
- Mehrere Personen können gleichzeitig mit denselben Daten arbeiten; in ClubNet 5 war das nur über ein Netzlaufwerk möglich und führte häufig zu gesperrten Dateien.
- Das Mitgliederportal und die App ClubNet Mobil gibt es nur in ClubNet 6.
- Die Finanzbuchhaltung von ClubNet 6 trennt die vier steuerlichen Bereiche automatisch; in ClubNet 5 musste die Zuordnung am Jahresende von Hand erfolgen.
- Die Statistik für den Landessportbund, die ClubNet 5 als Zusatzmodul anbot, ist in ClubNet 6 noch nicht verfügbar.

## 13.2 Schulungen

Vereinsfux bietet jeden Monat kostenlose Online-Schulungen zum Umstieg an. Eine Schulung dauert 90 Minuten und behandelt den Umzugsassistenten, die Beitragsverwaltung und die SEPA-Lastschrift. Für Verbände mit mehr als zehn Untergliederungen gibt es auf Anfrage eine eigene Schulung für die Abteilungsleitungen, die 390 Euro zuzüglich Umsatzsteuer kostet.

# 14 Glossar

Gläubiger-Identifikationsnummer: eine von der Deutschen Bundesbank vergebene Kennung, die jeder Verein benötigt, der Lastschriften einzieht.

Mandatsreferenz: eine vom Verein vergebene eindeutige Kennung eines SEPA-Mandats; ClubNet verwendet ab Werk die Mitgliedsnummer.

Untergliederung: eine Abteilung, ein Ortsverein oder eine Gruppe mit eigener Mitgliederliste und eigener Kasse innerhalb der Edition Verband.

Beitragsgruppe: eine Gruppe von Mitgliedern mit gleichem Beitrag und gleichem Zahlungsrhythmus.

Vorabankündigung: die Mitteilung an das Mitglied, wann und in welcher Höhe eine Lastschrift eingezogen wird (englisch Pre-Notification).

Zuwendungsbestätigung: die amtliche Bezeichnung der Spendenbescheinigung, mit der Spenden und Mitgliedsbeiträge steuerlich geltend gemacht werden können.

Kassenprüfung: die jährliche Prüfung der Kasse durch von der Mitgliederversammlung gewählte Kassenprüferinnen und Kassenprüfer, die nicht dem Vorstand angehören dürfen.

Ideeller Bereich: der Teil der Vereinsarbeit, der unmittelbar dem Satzungszweck dient, etwa der Trainingsbetrieb eines Sportvereins oder die Chorproben eines Gesangvereins; Mitgliedsbeiträge und Spenden werden hier gebucht.

Zweckbetrieb: ein wirtschaftlicher Betrieb, der dem Satzungszweck dient und steuerlich begünstigt ist, zum Beispiel eine Sportveranstaltung mit Eintritt unterhalb der gesetzlichen Grenze.

Wirtschaftlicher Geschäftsbetrieb: alle übrigen Einnahmen aus Verkauf und Bewirtung, etwa der Getränkeverkauf beim Vereinsfest; ClubNet weist diesen Bereich im Kassenbericht getrennt aus, damit die Besteuerungsgrenzen geprüft werden können.

Untergliederungskasse: das eigene Konto einer Abteilung, dessen Buchungen in den Jahresabschluss des Hauptvereins einfließen.
"""

DOCS = [
    {"name": "betriebsanleitung_waermepumpe_aw12.pdf", "text": WAERMEPUMPE, "date": (2025, 3, 1),
     "author": "Thermiq Heiztechnik GmbH", "footer": "Calora AW12 Betriebsanleitung"},
    {"name": "geschaeftsbericht_2024_wohnungsgenossenschaft_talblick.pdf", "text": GESCHAEFTSBERICHT,
     "date": (2025, 4, 28), "author": "Wohnungsgenossenschaft Talblick eG",
     "footer": "Geschäftsbericht 2024 · Wohnungsgenossenschaft Talblick eG"},
    {"name": "handbuch_vereinsverwaltung_clubnet.pdf", "text": CLUBNET, "date": (2025, 9, 1),
     "author": "Vereinsfux Software GmbH", "footer": "ClubNet 6.2 Handbuch"},
    {"name": "reisekostenrichtlinie_2025.docx", "text": REISEKOSTEN, "date": (2024, 12, 10),
     "author": "Brauner & Sohn Logistik GmbH, Personalabteilung", "footer": ""},
    {"name": "statusbericht_sanierung_freibad_q3-2025.docx", "text": FREIBAD, "date": (2025, 10, 14),
     "author": "Kramer Bauconsult GmbH", "footer": ""},
]
