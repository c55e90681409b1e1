= Betriebshandbuch Wasserwerk Birkenau-Nord

Ausgabe 4, gültig ab 1. Januar 2024. Verantwortlich: Martin Hellwig, Technischer Leiter der Stadtwerke
Birkenau GmbH.

# 1 Zweck und Geltungsbereich

Dieses Betriebshandbuch beschreibt den Regelbetrieb und das Vorgehen bei Störungen im Wasserwerk
Birkenau-Nord, im Hochbehälter Eichberg und in den zugehörigen Brunnen. Es gilt für alle Beschäftigten
der Wasserversorgung sowie für Fremdfirmen, die in diesen Anlagen tätig sind. Das Handbuch ist an jedem
Arbeitsplatz der Leitwarte in gedruckter Form vorzuhalten.

# 2 Anlagenübersicht

## 2.1 Brunnen

Das Rohwasser wird aus sechs Vertikalfilterbrunnen (Brunnen I bis VI) mit Tiefen zwischen 38 und 64 Metern
gefördert. Die Brunnen können zusammen höchstens 520 Kubikmeter pro Stunde fördern. Die genehmigte
Jahresentnahme beträgt 3,8 Millionen Kubikmeter; im Jahr 2023 wurden 3,4 Millionen Kubikmeter gefördert.

## 2.2 Aufbereitung

Das Rohwasser wird belüftet und anschließend in vier offenen Schnellfiltern enteisent und entmangant. Seit
September 2023 erfolgt die Desinfektion in zwei parallel betriebenen UV-Reaktoren mit einer
Mindestbestrahlung von 400 J/m². Die Chlordioxid-Anlage wird nur noch in Bereitschaft gehalten.

## 2.3 Hochbehälter Eichberg

Der Hochbehälter Eichberg versorgt die Hochzone der Stadt. Er besteht aus zwei Kammern mit je 2.000
Kubikmetern, zusammen also 4.000 Kubikmetern Speichervolumen. Während der Sanierung in den Jahren 2024 und
2025 wird jeweils nur eine Kammer außer Betrieb genommen, sodass die Versorgung jederzeit gesichert ist.

# 3 Schichtbetrieb und Bereitschaft

Werktags ist das Wasserwerk von 6:00 bis 22:00 Uhr in zwei Schichten mit jeweils mindestens zwei
Beschäftigten besetzt. Nachts, an Wochenenden und an Feiertagen wird die Anlage von der Leitwarte
fernüberwacht. Die Rufbereitschaft muss innerhalb von 45 Minuten nach der Alarmierung vor Ort sein.

Jede Schicht trägt Beginn, besondere Vorkommnisse und Übergabe in das Betriebstagebuch ein. Arbeiten an
Anlagenteilen, die mit Trinkwasser in Berührung kommen, dürfen nur mit gültigem Hygieneausweis ausgeführt
werden.

# 4 Überwachung und Grenzwerte

Trübung, pH-Wert, elektrische Leitfähigkeit und UV-Transmission werden am Reinwasserausgang kontinuierlich
gemessen. Ab einer Trübung von 0,2 NTU erzeugt die Leittechnik eine Warnung. Bei Überschreitung von 0,5 NTU
am Reinwasserausgang ist die Rufbereitschaft zu alarmieren und die Abgabe in das Netz zu prüfen.

Fällt ein UV-Reaktor aus, übernimmt der zweite Reaktor automatisch die volle Durchflussmenge. Fallen beide
Reaktoren aus, startet die Steuerung automatisch die Chlordioxid-Dosierung und alarmiert den Technischen
Leiter.

# 5 Störungsmanagement

## 5.1 Stromausfall

Bei einem Ausfall der öffentlichen Stromversorgung startet die Netzersatzanlage mit einer Leistung von 400
kVA automatisch innerhalb von 15 Sekunden. Der Dieselvorrat reicht für 72 Stunden Volllastbetrieb. Die
Netzersatzanlage wird an jedem ersten Montag im Monat für 30 Minuten unter Last getestet.

## 5.2 Rohrbruch im Versorgungsnetz

Meldungen über Rohrbrüche gehen bei der Leitwarte ein, die den Bereitschaftsdienst Netz alarmiert. Der
betroffene Leitungsabschnitt wird abgesperrt und die betroffenen Kundinnen und Kunden werden über die
Internetseite und die Warn-App der Stadt informiert. Sind mehr als 200 Haushalte länger als vier Stunden
ohne Wasser, wird eine Notversorgung mit zwei Trinkwasserwagen eingerichtet.

## 5.3 Verdacht auf Verunreinigung

Besteht der Verdacht einer mikrobiologischen Verunreinigung, ist sofort das zuständige Gesundheitsamt zu
informieren. Über ein Abkochgebot entscheidet das Gesundheitsamt; die Stadtwerke setzen es um und
informieren die Bevölkerung.

# 6 Meldeketten

| Ereignis | Erste Meldung an | Frist |
| Trübung über 0,5 NTU | Rufbereitschaft Wassermeister | sofort |
| Auffälliger mikrobiologischer Befund | Gesundheitsamt und Technischer Leiter | sofort |
| Ausfall beider UV-Reaktoren | Technischer Leiter | sofort |
| Stromausfall länger als eine Stunde | Technischer Leiter und Leitwarte Strom | innerhalb einer Stunde |
| Verdacht auf Cyberangriff auf die Leittechnik | IT-Bereitschaft und Informationssicherheitsbeauftragte | sofort |

Jede Störung ist unabhängig von ihrer Dauer im Betriebstagebuch zu dokumentieren.
