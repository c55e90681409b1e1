= Datenschutzrichtlinie der Stadtwerke Birkenau GmbH

Version 2.0, Stand: 1. März 2024. Freigegeben durch die Geschäftsführung am 26. Februar 2024.
Verantwortlich für den Inhalt: Sabine Krüger, Datenschutzbeauftragte.

# § 1 Geltungsbereich

(1) Diese Richtlinie gilt für alle Beschäftigten der Stadtwerke Birkenau GmbH einschließlich der
Auszubildenden, Praktikantinnen und Praktikanten sowie für Leiharbeitskräfte.

(2) Sie regelt den Umgang mit personenbezogenen Daten von Kundinnen und Kunden, Beschäftigten,
Lieferanten und sonstigen Dritten, unabhängig davon, ob die Daten elektronisch oder auf Papier
verarbeitet werden.

(3) Für Tochtergesellschaften gilt die Richtlinie, soweit diese sie durch Beschluss ihrer Geschäftsführung
übernommen haben.

# § 2 Begriffsbestimmungen

(1) Personenbezogene Daten sind alle Informationen, die sich auf eine identifizierte oder identifizierbare
natürliche Person beziehen (Art. 4 Nr. 1 DSGVO). Dazu gehören auch Vertragskontonummern und Zählernummern.

(2) Messdaten im Sinne dieser Richtlinie sind Zählerstände sowie Lastgänge, das heißt viertelstündliche
Messwerte aus intelligenten Messsystemen.

# § 3 Grundsätze der Verarbeitung

Personenbezogene Daten dürfen nur auf einer Rechtsgrundlage und nur für festgelegte, eindeutige Zwecke
verarbeitet werden. Es sind nur so viele Daten zu erheben, wie für den jeweiligen Zweck erforderlich sind.
Die Daten sind sachlich richtig zu halten, vor unbefugtem Zugriff zu schützen und zu löschen, sobald sie
nicht mehr benötigt werden.

# § 4 Verantwortlichkeiten

(1) Die Geschäftsführung trägt die Gesamtverantwortung für den Datenschutz.

(2) Die Datenschutzbeauftragte berät die Geschäftsführung und die Beschäftigten, überwacht die Einhaltung
dieser Richtlinie und führt das Verzeichnis der Verarbeitungstätigkeiten. Sie ist unter
datenschutz@stadtwerke-birkenau.example erreichbar.

(3) Die Führungskräfte stellen sicher, dass in ihrem Bereich neue Verarbeitungen vor ihrem Beginn der
Datenschutzbeauftragten gemeldet werden.

# § 5 Verarbeitung von Messdaten

(1) Zählerstände werden für die Abrechnung, die Bilanzierung und den Netzbetrieb verarbeitet.

(2) Viertelstündliche Messwerte aus intelligenten Messsystemen dürfen nur verarbeitet werden, soweit dies
für die Abrechnung eines variablen Tarifs erforderlich ist oder die Kundin oder der Kunde ausdrücklich
eingewilligt hat.

(3) Auswertungen für die Netzplanung werden ausschließlich mit aggregierten Daten von mindestens fünf
Anschlussnutzern durchgeführt.

(4) Der Zugriff auf Messdaten erfolgt nur über das Lumen Data Gateway und das Meter Data Management.
Exporte von Messdaten in andere Systeme bedürfen der vorherigen Freigabe durch die
Datenschutzbeauftragte.

# § 6 Auftragsverarbeitung

Werden personenbezogene Daten im Auftrag der Stadtwerke durch Dienstleister verarbeitet, ist vor Beginn
der Verarbeitung ein Vertrag nach Art. 28 DSGVO abzuschließen. Die Datenschutzbeauftragte prüft den
Vertrag vor der Unterzeichnung. Eine Verarbeitung außerhalb der Europäischen Union ist nur zulässig, wenn
ein Angemessenheitsbeschluss vorliegt oder geeignete Garantien vereinbart wurden.

# § 7 Löschfristen

(1) Personenbezogene Daten werden gelöscht, sobald sie für den Zweck, für den sie erhoben wurden, nicht
mehr erforderlich sind und keine gesetzlichen Aufbewahrungspflichten entgegenstehen.

(2) Es gelten die folgenden Regelfristen:

| Datenkategorie | Löschfrist | Grundlage |
| Rechnungen und Buchungsbelege | 10 Jahre nach Ende des Kalenderjahres | § 147 AO |
| Vertragsstammdaten | 3 Jahre nach Vertragsende | Verjährungsfrist |
| Viertelstündliche Messwerte | 3 Jahre nach Erhebung | Abrechnung und Netzbetrieb |
| Bewerbungsunterlagen | 6 Monate nach Abschluss des Verfahrens | § 15 AGG |
| Protokolle des Kundenportals | 90 Tage | IT-Sicherheit |
| Videoaufzeichnungen Betriebsgelände | 72 Stunden | Hausrecht |

(3) Abweichungen von diesen Fristen bedürfen der schriftlichen Zustimmung der Datenschutzbeauftragten.

# § 8 Datenschutzverletzungen

(1) Alle Beschäftigten melden eine vermutete Verletzung des Schutzes personenbezogener Daten unverzüglich,
spätestens innerhalb von 24 Stunden nach Bekanntwerden, an die Datenschutzbeauftragte.

(2) Die Datenschutzbeauftragte bewertet den Vorfall und bereitet gegebenenfalls die Meldung an die
Aufsichtsbehörde vor, die nach Art. 33 DSGVO innerhalb von 72 Stunden erfolgen muss.

(3) Betrifft ein Vorfall zugleich die Sicherheit von IT-Systemen, ist er außerdem nach der
Informationssicherheitsrichtlinie zu melden.

# § 9 Schulung

Alle Beschäftigten nehmen jährlich an einer Datenschutzschulung teil. Neue Beschäftigte absolvieren die
Schulung innerhalb von vier Wochen nach ihrem Eintritt.

# § 10 Inkrafttreten

Diese Richtlinie tritt am 1. März 2024 in Kraft und ersetzt die Version 1.3 vom 1. Juni 2020.
