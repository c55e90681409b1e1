"""Source texts of the ragscope sample corpus (data/samples/).

All document content lives here as Python data so that data/make_samples.py can render it
into PDF/DOCX/ODT/HTML/Markdown/TXT files and `make_samples.py --check` can verify the
goldenset (eval/goldenset_sample.yaml) against the very same strings.

Markup of the `src` strings of pdf/docx/odt/html documents (a tiny line-based DSL):
    = Title                 document title (not a section heading)
    # Heading               heading level 1 (## level 2, ### level 3)
    - item                  bullet list item (one line each)
    | a | b | c |           table row (first row = header row)
    ```  ...  ```           code block (verbatim lines)
    other lines             paragraph text; consecutive lines are joined with a space,
                            a blank line ends the paragraph
Markdown (`md`) and plain-text (`txt`) documents are stored verbatim.

Everything is fictional: Stadtwerke Birkenau GmbH (a municipal utility), Lumen Systems GmbH
and its product "Lumen Data Gateway", all persons, phone numbers and *.example addresses.
"""

# ---------------------------------------------------------------------------------------
# 1. Lumen Data Gateway – Handbuch (German technical manual, PDF WITH outline)
# ---------------------------------------------------------------------------------------
LUMEN_HANDBUCH = """\
= Lumen Data Gateway 3.2 – Installations- und Betriebshandbuch

Dokumentversion 3.2.0-de, Stand: März 2024. Herausgeber: Lumen Systems GmbH, Produktdokumentation.
Dieses Handbuch richtet sich an Administratorinnen und Administratoren, die das Gateway installieren,
konfigurieren und im laufenden Betrieb betreuen.

# 1 Einleitung

Das Lumen Data Gateway ist eine Middleware für die sichere Übertragung von Mess- und Betriebsdaten
zwischen Feldgeräten, Smart-Meter-Gateways und den zentralen IT-Systemen eines Versorgungsunternehmens.
Es nimmt Daten über MQTT, HTTPS und das Fernwirkprotokoll IEC 60870-5-104 entgegen, prüft sie auf
Plausibilität, puffert sie bei Bedarf und leitet sie an nachgelagerte Systeme wie ein Meter Data
Management (MDM) oder ein Data Warehouse weiter.

Dieses Handbuch beschreibt die Version 3.2. Es erläutert die Installation auf einem Linux-Server, die
wichtigsten Konfigurationsparameter, den laufenden Betrieb sowie die Behebung typischer Fehler. Hinweise
zum Betrieb im Cluster mit automatischer Umschaltung finden Sie in Kapitel 3.3, die REST-Schnittstelle
ist in der separaten API-Dokumentation beschrieben.

## 1.1 Begriffe

- Knoten: eine einzelne Instanz des Gateways auf einem Server.
- Quelle: ein Gerät oder System, das Daten an das Gateway sendet, zum Beispiel ein Smart-Meter-Gateway.
- Senke: ein System, an das das Gateway Daten weiterleitet, zum Beispiel das MDM.
- Puffer: der lokale Zwischenspeicher, in dem Daten gehalten werden, solange eine Senke nicht erreichbar ist.

# 2 Installation

## 2.1 Voraussetzungen

Für den produktiven Betrieb empfehlen wir einen Server mit mindestens 4 vCPU, 8 GB Arbeitsspeicher und
50 GB SSD-Speicher für den Puffer. Unterstützt werden Debian 12, Ubuntu 22.04 LTS und Red Hat Enterprise
Linux 9 mit einem Kernel ab Version 5.10. Das Gateway wird als statisch gelinktes Programm ausgeliefert
und benötigt keine zusätzliche Laufzeitumgebung.

Zwischen den Quellen und dem Gateway muss der TCP-Port 8443 freigegeben sein. Für die
Administrationsschnittstelle wird zusätzlich der Port 9443 benötigt, der nur aus dem Verwaltungsnetz
erreichbar sein sollte. Im Clusterbetrieb kommunizieren die Knoten untereinander über den Port 7946.

Die Installation erfordert Root-Rechte. Das Installationspaket legt den Systembenutzer lumen an, unter
dem der Dienst später läuft, sowie die Verzeichnisse /etc/lumen, /var/lib/lumen und /var/log/lumen.

## 2.2 Konfiguration

Die zentrale Konfigurationsdatei liegt unter /etc/lumen/gateway.yaml. Ein abweichender Pfad kann über die
Umgebungsvariable LUMEN_CONFIG angegeben werden. Änderungen an der Datei werden erst nach einem Neustart
des Dienstes oder nach dem Befehl lumenctl reload wirksam.

Das Gateway lauscht standardmäßig auf Port 8443; der Port wird mit dem Schlüssel gateway.port festgelegt.
Über gateway.bind_address bestimmen Sie die Netzwerkschnittstelle, die Voreinstellung ist 0.0.0.0.

Der Schlüssel gateway.max_connections begrenzt die Zahl gleichzeitiger Verbindungen pro Knoten. Der
Standardwert beträgt 512. Wird die Grenze erreicht, lehnt das Gateway neue Verbindungen mit dem
Fehlercode LDG-1042 ab. Bei mehr als 5.000 angebundenen Smart-Meter-Gateways empfehlen wir einen Wert von
mindestens 1024.

Mit gateway.worker_threads legen Sie die Anzahl der Verarbeitungsthreads fest. Ohne Angabe verwendet das
Gateway die doppelte Anzahl der verfügbaren CPU-Kerne. Für Stammdatenabfragen hält das Gateway einen
Zwischenspeicher vor, dessen Gültigkeitsdauer mit gateway.cache.ttl_seconds eingestellt wird
(Voreinstellung 300 Sekunden); seine Größe begrenzt gateway.cache.max_size_mb (Voreinstellung 256).

Ein typischer Ausschnitt der Konfigurationsdatei sieht wie folgt aus:

```
gateway:
  port: 8443
  bind_address: 0.0.0.0
  max_connections: 1024
  tls:
    min_version: "1.3"
    cert_file: /etc/lumen/tls/gateway.crt
    key_file: /etc/lumen/tls/gateway.key
storage:
  path: /var/lib/lumen/buffer
  retention_days: 14
```

## 2.3 Umgebungsvariablen

Einige Einstellungen können über Umgebungsvariablen gesetzt werden. Umgebungsvariablen haben Vorrang vor
den Werten in der Konfigurationsdatei.

- LUMEN_LOG_LEVEL: Detailgrad der Protokollierung. Zulässige Werte sind debug, info, warn und error; die Voreinstellung ist info.
- LUMEN_CONFIG: Pfad zur Konfigurationsdatei, falls diese nicht unter /etc/lumen/gateway.yaml liegt.
- LUMEN_DATA_DIR: Basisverzeichnis für Puffer und Zustandsdaten, Voreinstellung /var/lib/lumen.
- LUMEN_HEAP_MB: Obergrenze für den Arbeitsspeicher des Puffers in Megabyte.

## 2.4 Erster Start

Nach der Installation prüfen Sie die Konfiguration mit dem Befehl lumenctl config validate. Anschließend
starten Sie den Dienst mit systemctl start lumen-gateway und aktivieren den automatischen Start beim
Hochfahren mit systemctl enable lumen-gateway. Der Befehl lumenctl status zeigt, ob der Knoten bereit ist
und wie viele Verbindungen aktuell bestehen.

# 3 Betrieb

## 3.1 Protokollierung

Das Gateway schreibt seine Protokolle nach /var/log/lumen/gateway.log. Die Dateien werden bei einer Größe
von 100 MB rotiert; es werden höchstens zehn ältere Dateien aufbewahrt. Für die Fehlersuche kann
LUMEN_LOG_LEVEL vorübergehend auf debug gesetzt werden. Im Dauerbetrieb sollte diese Stufe nicht
verwendet werden, da sie das Protokollvolumen etwa verzehnfacht und personenbezogene Zählernummern
enthalten kann.

## 3.2 Pufferung und Datenhaltung

Ist eine Senke nicht erreichbar, speichert das Gateway eingehende Daten im lokalen Puffer unter dem mit
storage.path angegebenen Verzeichnis. Der Schlüssel storage.retention_days legt fest, wie lange gepufferte
Daten aufbewahrt werden; die Voreinstellung beträgt 7 Tage. Sobald die Senke wieder erreichbar ist, werden
die Daten in der Reihenfolge ihres Eingangs nachgeliefert.

Unterschreitet der freie Speicherplatz im Pufferverzeichnis 10 Prozent, meldet das Gateway den Fehler
LDG-3007 und nimmt nur noch Daten mit hoher Priorität an. Daten mit normaler Priorität werden dann von
den Quellen selbst zwischengespeichert, sofern diese dazu in der Lage sind.

## 3.3 Clusterbetrieb und Failover

Für hochverfügbare Installationen werden zwei oder mehr Knoten zu einem Cluster zusammengeschlossen. Die
Knoten werden unter cluster.peers eingetragen. Ein aktiver Knoten verarbeitet den Datenverkehr, die
übrigen stehen in Bereitschaft.

Die Knoten tauschen alle 1500 Millisekunden Statusmeldungen aus; das Intervall wird mit
cluster.heartbeat_interval_ms eingestellt. Bleiben die Meldungen des aktiven Knotens länger als die mit
cluster.failover_timeout_ms festgelegte Zeit aus, übernimmt automatisch ein Bereitschaftsknoten. Die
Voreinstellung für cluster.failover_timeout_ms beträgt 6000 Millisekunden. Eine manuelle Umschaltung ist
mit dem Befehl lumenctl cluster promote möglich.

# 4 Sicherheit

## 4.1 TLS-Verschlüsselung

Alle Verbindungen zum Gateway sind TLS-verschlüsselt. Die minimal zulässige Protokollversion wird mit
gateway.tls.min_version festgelegt. Die Voreinstellung ist 1.2; wir empfehlen, den Wert auf 1.3 zu setzen,
sofern alle Quellen TLS 1.3 unterstützen. Zertifikat und privater Schlüssel werden über
gateway.tls.cert_file und gateway.tls.key_file angegeben. Der private Schlüssel muss dem Benutzer lumen
gehören und darf nur für diesen lesbar sein (Dateirechte 0600).

## 4.2 Authentifizierung

Das Gateway unterstützt drei Verfahren, die mit gateway.auth.mode gewählt werden: token für zeitlich
begrenzte Zugriffstoken, mtls für die gegenseitige Authentifizierung mit Zertifikaten und oidc für die
Anbindung an einen OpenID-Connect-Anbieter. Zugriffstoken sind standardmäßig 3600 Sekunden gültig; die
Gültigkeitsdauer wird mit gateway.auth.token_ttl eingestellt. Für Smart-Meter-Gateways empfehlen wir das
Verfahren mtls.

## 4.3 Rollen und Berechtigungen

Die Administrationsschnittstelle kennt die Rollen viewer, operator und admin. Die Rolle viewer darf
Status und Metriken lesen, die Rolle operator darf zusätzlich Senken pausieren und den Puffer leeren. Nur
die Rolle admin darf die Konfiguration ändern und Knoten im Cluster umschalten.

# 5 Fehlerbehebung

Die folgende Übersicht nennt die häufigsten Fehlercodes, ihre Bedeutung und die empfohlene Maßnahme.

| Fehlercode | Bedeutung | Maßnahme |
| LDG-1042 | Verbindungslimit erreicht | gateway.max_connections erhöhen oder Last verteilen |
| LDG-2001 | TLS-Handshake fehlgeschlagen | Protokollversion und Zertifikat der Quelle prüfen |
| LDG-2015 | Zugriffstoken abgelaufen | Neues Token anfordern, gateway.auth.token_ttl prüfen |
| LDG-3007 | Speicherplatz im Puffer knapp | storage.retention_days verringern oder Speicher erweitern |
| LDG-4100 | Senke nicht erreichbar | Netzwerkverbindung und Zugangsdaten der Senke prüfen |

Lässt sich ein Fehler nicht beheben, erstellen Sie mit lumenctl support-bundle ein Diagnosepaket und
senden es an den Support der Lumen Systems GmbH. Das Paket enthält die Konfiguration und die Protokolle
der letzten 24 Stunden; Passwörter und private Schlüssel werden automatisch entfernt.
"""

# ---------------------------------------------------------------------------------------
# 2. Annual report 2023 (English report, PDF WITHOUT outline, numbered headings)
# ---------------------------------------------------------------------------------------
ANNUAL_REPORT_2023 = """\
= Stadtwerke Birkenau GmbH – Annual Report 2023

Published by the Management Board, Birkenau, May 2024. This English edition is a translation of the
German annual report; in case of doubt the German version prevails.

# 1 Executive Summary

2023 was a year of consolidation for Stadtwerke Birkenau. Despite the after-effects of the energy price
crisis, we reliably supplied 41,200 households and businesses with electricity, water and district
heating. Revenue rose to EUR 84.6 million (2022: EUR 79.1 million), while net income fell slightly to
EUR 3.9 million because of higher procurement costs. We invested EUR 21.3 million, more than in any
previous year, most of it in the water network and in the digitalisation of metering.

The most important milestones were the start of the smart meter rollout, the commissioning of the new UV
disinfection plant at the Birkenau-Nord waterworks and the connection of 212 additional buildings to the
district heating network.

# 2 Water Supply

## 2.1 Production and Quality

Our six wells and the Birkenau-Nord waterworks produced 3.4 million cubic metres of drinking water in
2023. All 1,180 laboratory samples taken during the year complied with the limits of the German Drinking
Water Ordinance (Trinkwasserverordnung). The new UV disinfection stage, commissioned in September,
replaces chlorine dosing as the primary disinfection step; a chlorine dioxide system is now only kept on
standby.

## 2.2 Network Renewal

The water network has a length of 287 kilometres. We renewed 4.1 kilometres of mains in 2023, which
corresponds to a renewal rate of 1.4 percent. Water losses decreased from 9.8 to 8.6 percent of the
volume fed into the network, mainly thanks to systematic leak detection with acoustic loggers.

Planning for the refurbishment of the Eichberg elevated reservoir was completed in 2023. The reservoir,
built in 1962, shows cracks in the inner coating of both chambers. Construction is scheduled to start in
spring 2024 with a total budget of EUR 2.1 million.

# 3 Electricity and District Heating

Electricity sales amounted to 312 GWh, a decrease of 3 percent compared with the previous year, which we
attribute mainly to energy savings by commercial customers. The distribution grid recorded an average
interruption duration (SAIDI) of 9.7 minutes per customer, well below the national average.

District heating sales rose to 96 GWh. With 212 new connections, the district heating network now
supplies 2,950 buildings. The combined heat and power plant at Werkstraße was operated for 6,840 full-load
hours.

# 4 Digital Transformation

## 4.1 Smart Metering

In accordance with the German Metering Point Operation Act, we began installing intelligent metering
systems in March 2023. By the end of the year, 9,800 of the approximately 31,000 metering points in scope
had been equipped. The rollout is planned to be completed by the end of 2026.

## 4.2 Data Platform

To integrate the new meters, we introduced the Lumen Data Gateway as the central middleware between smart
meter gateways and our meter data management system. The platform runs as a two-node cluster in our data
centres North and South. Availability of the platform in the second half of 2023 was 99.93 percent.
Further work on the platform, including an upgrade to version 3.2, is planned for 2024.

# 5 Financial Performance

The following table summarises the key figures of the financial year compared with the previous year.

| Key figure | 2023 | 2022 |
| Revenue | EUR 84.6 million | EUR 79.1 million |
| EBIT | EUR 6.2 million | EUR 7.0 million |
| Net income | EUR 3.9 million | EUR 4.4 million |
| Investments | EUR 21.3 million | EUR 16.8 million |
| Equity ratio | 38.5 % | 37.9 % |
| Employees at year-end | 264 | 251 |

The decline in EBIT results primarily from procurement costs for electricity that could only partly be
passed on to customers. The equity ratio improved slightly because of the retention of profits agreed
with the City of Birkenau as sole shareholder.

# 6 Employees

At the end of 2023, Stadtwerke Birkenau employed 264 people, including 19 apprentices. Staff turnover was
4.2 percent. To counter the shortage of skilled workers, we introduced a dual study programme in
electrical engineering together with a regional university of applied sciences and expanded our
in-house training for pipe fitters.

# 7 Outlook 2024

For 2024 we expect revenue of around EUR 86 million. Our investment plan provides for EUR 24.5 million,
the largest items being the refurbishment of the Eichberg elevated reservoir, the continuation of the
smart meter rollout and the expansion of the district heating network. In March 2024 the committees of
Stadtwerke Birkenau decided to adjust the water price with effect from 1 January 2025; it had last been
changed in 2019.
"""

# ---------------------------------------------------------------------------------------
# 3. Merkblatt Fernwärme (German leaflet, PDF with words hyphenated at line ends)
# ---------------------------------------------------------------------------------------
MERKBLATT_FERNWAERME = """\
= Merkblatt: Ihr Fernwärme-Hausanschluss

Sie möchten Ihr Gebäude an das Fernwärmenetz der Stadtwerke Birkenau anschließen? Dieses Merkblatt erklärt die Schritte vom Antrag bis zur ersten Wärmelieferung und nennt die wichtigsten technischen und kaufmännischen Bedingungen. Stand: Januar 2024.

# Ablauf in fünf Schritten

Schritt 1 – Anfrage: Sie stellen über das Kundenportal oder mit dem Anfrageformular eine unverbindliche Anfrage. Wir prüfen, ob in Ihrer Straße eine Fernwärmeleitung liegt oder geplant ist, und melden uns innerhalb von zehn Werktagen bei Ihnen.

Schritt 2 – Vor-Ort-Termin: Eine Mitarbeiterin oder ein Mitarbeiter unseres Teams Fernwärme besichtigt Ihren Heizungsraum, ermittelt gemeinsam mit Ihnen den Wärmebedarf und legt die Trasse der Anschlussleitung über Ihr Grundstück fest.

Schritt 3 – Angebot und Vertrag: Sie erhalten ein schriftliches Angebot mit allen einmaligen Kosten und dem voraussichtlichen Jahrespreis. Mit Ihrer Unterschrift unter den Wärmeliefervertrag beauftragen Sie den Hausanschluss.

Schritt 4 – Bau des Hausanschlusses: Unsere Partnerfirmen verlegen die Leitung bis in Ihren Keller und montieren die Übergabestation. Die Tiefbauarbeiten auf dem Grundstück dauern in der Regel zwei bis drei Tage.

Schritt 5 – Inbetriebnahme: Ihr Heizungsbauer schließt die Hausanlage an die Übergabestation an. Danach nehmen wir den Anschluss gemeinsam mit Ihnen in Betrieb und übergeben Ihnen das Inbetriebnahmeprotokoll.

Von der Anfrage bis zur Inbetriebnahme vergehen in der Regel zehn bis sechzehn Wochen. In den Monaten Oktober bis März kann es wegen der Witterung zu längeren Wartezeiten für die Tiefbauarbeiten kommen.

# Technische Voraussetzungen

Unser Fernwärmenetz wird im Winter mit einer Vorlauftemperatur von bis zu 90 °C und im Sommer mit etwa 70 °C betrieben. Damit das Netz wirtschaftlich arbeitet, darf die Rücklauftemperatur aus Ihrer Hausanlage 50 °C nicht überschreiten. Ältere Heizkörperanlagen müssen dafür gegebenenfalls hydraulisch abgeglichen werden.

Für die Übergabestation benötigen Sie im Keller oder Hauswirtschaftsraum eine Wandfläche von etwa 1,2 m Breite sowie eine Stellfläche von etwa 1,5 m². Der Raum muss frostfrei und trocken sein und über eine Steckdose mit 230 V sowie einen Bodenablauf oder Ausguss verfügen.

# Übergabestation und Wärmemengenzähler

Die Übergabestation verbindet das Fernwärmenetz mit Ihrer Hausanlage. Sie trennt beide Kreisläufe hydraulisch voneinander, regelt die Temperatur und begrenzt den Durchfluss auf die vereinbarte Anschlussleistung. Die Übergabestation bleibt Eigentum der Stadtwerke Birkenau; Wartung und Reparaturen übernehmen wir, ohne dass Ihnen dafür zusätzliche Kosten entstehen.

Ihr Wärmeverbrauch wird mit einem geeichten Wärmemengenzähler erfasst, den wir stellen und alle fünf Jahre turnusgemäß austauschen. Der Wärmemengenzähler wird per Funk fernausgelesen; einen Ablesetermin müssen Sie deshalb nicht vereinbaren.

# Kosten

Für Ein- und Zweifamilienhäuser mit einer Anschlussleistung bis 30 kW berechnen wir einen Baukostenzuschuss von 4.900 EUR netto. Die Kosten für den Hausanschluss betragen pauschal 3.200 EUR netto für bis zu 15 Meter Leitungslänge auf Ihrem Grundstück; jeder weitere Meter wird mit 180 EUR netto berechnet. Für größere Gebäude erstellen wir ein individuelles Angebot.

Der laufende Wärmepreis setzt sich aus einem Grundpreis je Kilowatt Anschlussleistung und einem Arbeitspreis je verbrauchter Kilowattstunde zusammen. Die aktuellen Preise finden Sie im Preisblatt Fernwärme auf unserer Internetseite.

# Förderung

Der Anschluss an ein Wärmenetz kann im Rahmen der Bundesförderung für effiziente Gebäude (BEG) bezuschusst werden. Bitte beachten Sie, dass der Förderantrag in der Regel vor Abschluss des Wärmeliefervertrags gestellt werden muss. Unsere Energieberatung unterstützt Sie gern bei der Antragstellung.

# Ansprechpartner

Team Fernwärme der Stadtwerke Birkenau, Werkstraße 12, Telefon 0800 4711 300 (kostenfrei), E-Mail fernwaerme@stadtwerke-birkenau.example. Unsere Beratungszeiten sind montags bis donnerstags von 8 bis 16 Uhr und freitags von 8 bis 13 Uhr.
"""

# Words the PDF renderer may hyphenate at a line end (word -> part before the hyphen).
HYPHENATION = {
    "Übergabestation": "Übergabe",
    "Wärmemengenzähler": "Wärmemengen",
    "Anschlussleistung": "Anschluss",
    "Inbetriebnahme": "Inbetrieb",
    "Inbetriebnahmeprotokoll": "Inbetriebnahme",
    "Fernwärmenetz": "Fernwärme",
    "Vorlauftemperatur": "Vorlauf",
    "Rücklauftemperatur": "Rücklauf",
    "Wärmeliefervertrag": "Wärmeliefer",
    "Wärmeliefervertrags": "Wärmeliefer",
    "Tiefbauarbeiten": "Tiefbau",
    "Heizkörperanlagen": "Heizkörper",
    "Hauswirtschaftsraum": "Hauswirtschafts",
    "Baukostenzuschuss": "Baukosten",
}

# ---------------------------------------------------------------------------------------
# 4. Benutzungsordnung Kundenportal (German policy with § paragraphs, PDF without outline)
# ---------------------------------------------------------------------------------------
BENUTZUNGSORDNUNG = """\
= Benutzungsordnung für das Kundenportal der Stadtwerke Birkenau GmbH

Fassung vom 1. Februar 2024

# § 1 Geltungsbereich

(1) Diese Benutzungsordnung regelt die Nutzung des Online-Kundenportals der Stadtwerke Birkenau GmbH (im
Folgenden „Stadtwerke“) unter der Adresse portal.stadtwerke-birkenau.example.

(2) Sie gilt für alle Kundinnen und Kunden, die mit den Stadtwerken einen Vertrag über die Belieferung mit
Strom, Gas, Wasser oder Fernwärme geschlossen haben, sowie für die von ihnen bevollmächtigten Personen
(im Folgenden gemeinsam „Nutzer“).

(3) Ergänzend gelten die Allgemeinen Geschäftsbedingungen des jeweiligen Liefervertrags. Für die
Verarbeitung personenbezogener Daten gelten die Datenschutzhinweise für das Kundenportal.

# § 2 Registrierung

(1) Für die Registrierung sind die Vertragskontonummer, die Zählernummer und eine gültige E-Mail-Adresse
erforderlich. Nach Absenden des Registrierungsformulars erhält der Nutzer eine E-Mail mit einem
Bestätigungslink, der 48 Stunden gültig ist.

(2) Je Vertragskonto kann nur ein Hauptzugang eingerichtet werden. Der Inhaber des Hauptzugangs kann
weitere Personen als Mitnutzer mit eingeschränkten Rechten einladen; Mitnutzer dürfen Zählerstände
übermitteln und Rechnungen einsehen, aber keine Vertragsdaten ändern.

# § 3 Zugangsdaten

(1) Das Passwort muss mindestens zehn Zeichen lang sein und Buchstaben sowie Ziffern enthalten.

(2) Der Nutzer hat seine Zugangsdaten geheim zu halten und darf sie nicht an Dritte weitergeben. Besteht
der Verdacht, dass Unbefugte Kenntnis von den Zugangsdaten erlangt haben, ist das Passwort unverzüglich
zu ändern und der Kundenservice zu informieren.

(3) Die Stadtwerke empfehlen, die Zwei-Faktor-Authentifizierung mit einer Authenticator-App zu aktivieren.

# § 4 Leistungsumfang

(1) Über das Kundenportal können Nutzer insbesondere Zählerstände übermitteln, Rechnungen und
Vertragsunterlagen der letzten fünf Jahre abrufen, die Bankverbindung ändern und einen Umzug melden.

(2) Die monatlichen Abschlagszahlungen können im Kundenportal in einem Rahmen von 50 bis 150 Prozent des
von den Stadtwerken berechneten Abschlags selbst angepasst werden. Abweichungen außerhalb dieses Rahmens
sind beim Kundenservice zu beantragen.

(3) Ein Anspruch auf bestimmte Funktionen des Kundenportals besteht nicht. Die Stadtwerke können den
Leistungsumfang weiterentwickeln und einzelne Funktionen ändern.

# § 5 Verfügbarkeit

(1) Die Stadtwerke bemühen sich um eine Verfügbarkeit des Kundenportals von 98,5 Prozent im Jahresmittel.

(2) Geplante Wartungsarbeiten finden in der Regel dienstags zwischen 22:00 und 24:00 Uhr statt und werden
mindestens drei Tage vorher im Kundenportal angekündigt. Zeiten geplanter Wartung werden bei der
Berechnung der Verfügbarkeit nicht berücksichtigt.

# § 6 Pflichten der Nutzer

(1) Nutzer dürfen das Kundenportal nur für die Verwaltung ihrer eigenen Vertragsverhältnisse verwenden.

(2) Es ist untersagt, automatisierte Abfragen durchzuführen, die über die übliche Nutzung hinausgehen,
Sicherheitsmechanismen zu umgehen oder Schadsoftware hochzuladen.

(3) Übermittelte Zählerstände müssen wahrheitsgemäß und vollständig sein. Bei einer Zählerstandsmeldung
kann zur Plausibilisierung ein Foto des Zählers angefordert werden.

# § 7 Sperrung des Zugangs

(1) Nach fünf aufeinanderfolgenden fehlgeschlagenen Anmeldeversuchen wird der Zugang für 30 Minuten
gesperrt.

(2) Die Stadtwerke können den Zugang vorübergehend sperren, wenn der begründete Verdacht eines Missbrauchs
oder eines Verstoßes gegen § 6 besteht. Der Nutzer wird über die Sperrung per E-Mail informiert.

(3) Die Aufhebung einer Sperrung nach Absatz 2 kann beim Kundenservice beantragt werden.

# § 8 Haftung

(1) Die Stadtwerke haften unbeschränkt für Vorsatz und grobe Fahrlässigkeit. Für leichte Fahrlässigkeit
haften sie nur bei Verletzung wesentlicher Pflichten und begrenzt auf den vorhersehbaren, typischen
Schaden.

(2) Für Schäden, die dadurch entstehen, dass ein Nutzer seine Zugangsdaten nicht geheim gehalten hat,
haften die Stadtwerke nicht.

# § 9 Kündigung und Löschung des Zugangs

(1) Nutzer können ihren Zugang jederzeit in den Kontoeinstellungen löschen.

(2) Nach Beendigung des letzten Liefervertrags wird der Zugang nach Ablauf von sechs Monaten automatisch
gelöscht. Gesetzliche Aufbewahrungspflichten für Rechnungsdaten bleiben unberührt.

# § 10 Änderungen dieser Benutzungsordnung

Die Stadtwerke können diese Benutzungsordnung mit Wirkung für die Zukunft ändern. Änderungen werden den
Nutzern mindestens sechs Wochen vor ihrem Wirksamwerden per E-Mail mitgeteilt. Widerspricht der Nutzer
nicht innerhalb dieser Frist, gelten die Änderungen als angenommen; auf diese Folge wird in der
Mitteilung hingewiesen.

# § 11 Inkrafttreten

Diese Benutzungsordnung tritt am 1. Februar 2024 in Kraft und ersetzt die Fassung vom 1. Juli 2021.
"""

# ---------------------------------------------------------------------------------------
# 5. Steering committee minutes (English meeting minutes, DOCX with headings and a table)
# ---------------------------------------------------------------------------------------
STEERING_MINUTES = """\
= Digitalisation Programme – Steering Committee Minutes

Meeting of 18 April 2024, 14:00–16:15, Stadtwerke Birkenau, Werkstraße 12, room 2.04 and video
conference. Chair: Dr. Katrin Vogelsang (Managing Director). Minutes: Lena Hoffmann (Programme Office).

# Attendees

- Dr. Katrin Vogelsang, Managing Director (chair)
- Martin Hellwig, Technical Director
- Jonas Albrecht, Head of IT
- Priya Raman, Information Security Officer
- Sabine Krüger, Data Protection Officer
- Tobias Brandt, Head of Metering
- Ayşe Demir, Finance (deputising for Frank Seidel, Head of Finance, who sent apologies)
- Lena Hoffmann, Programme Office (minutes)

# Agenda item 1: Approval of the agenda and of the previous minutes

The agenda was approved as circulated. The minutes of the meeting of 15 February 2024 were approved
without changes.

# Agenda item 2: Status of the smart meter rollout

Tobias Brandt reported that 14,350 of the approximately 31,000 metering points in scope have been equipped
with intelligent metering systems, which corresponds to 46 percent. The rollout is about two weeks behind
plan because the delivery of 2,000 meters was delayed by the manufacturer. To catch up, a third external
installer crew will start work in May.

The committee took note of the report. No decision was required.

# Agenda item 3: Upgrade of the Lumen Data Gateway to version 3.2

Jonas Albrecht presented the upgrade plan. Version 3.2 makes the minimum TLS version configurable and
fixes a memory leak in the master data cache. The upgrade will first be installed on the test cluster in
May; the production cluster will be upgraded in the maintenance window on Saturday, 8 June 2024,
06:00–10:00.

Priya Raman asked that gateway.tls.min_version be set to 1.3 immediately after the upgrade, as required by
the information security policy for new configurations. Jonas Albrecht pointed out that two legacy data
concentrators in the Eichberg substation only support TLS 1.2 and will not be replaced before the fourth
quarter of 2024.

Decision: The committee approves the upgrade of the Lumen Data Gateway to version 3.2 with a budget of
EUR 48,000 for licences and external support. TLS 1.3 becomes the minimum version for all sources except
the two legacy concentrators, for which a time-limited exception is to be documented.

# Agenda item 4: Review of incident INC-2024-031

Jonas Albrecht summarised the incident of 27 February 2024, in which the gateway rejected new meter
connections for 47 minutes after a firmware update caused all devices to reconnect at the same time. The
connection limit has since been raised and the meter vendor has added a randomised reconnect delay. A load
test is still outstanding.

Decision: The committee accepts the post-incident report. The incident will be closed once the load test
has been passed.

# Agenda item 5: Relaunch of the customer portal

Lena Hoffmann reported on the relaunch of the customer portal. The new portal will show daily consumption
values for customers with intelligent metering systems and, with the customer's consent, quarter-hourly
values. Sabine Krüger pointed out that a data protection impact assessment is required because of the
quarter-hourly values and must be completed before go-live.

Decision: The committee confirms go-live of the relaunched customer portal on 1 October 2024, subject to
the data protection impact assessment being completed by 31 July 2024.

# Agenda item 6: Any other business

Martin Hellwig informed the committee that the refurbishment of the Eichberg elevated reservoir has been
awarded and will start in April. There were no further items.

# Action items

| No. | Action | Owner | Due |
| A-24-07 | Run a load test with 1,500 simulated connections on the test cluster | Jonas Albrecht | 24 May 2024 |
| A-24-08 | Document the TLS exception for the legacy concentrators in the Eichberg substation | Priya Raman | 3 May 2024 |
| A-24-09 | Complete the data protection impact assessment for the customer portal relaunch | Sabine Krüger | 31 July 2024 |
| A-24-10 | Update the rollout plan to include the third installer crew | Tobias Brandt | 2 May 2024 |

# Next meeting

The next meeting of the steering committee will take place on 20 June 2024 at 14:00.
"""

# ---------------------------------------------------------------------------------------
# 6. Datenschutzrichtlinie (German policy with § headings, DOCX with a table) – has a v2
# ---------------------------------------------------------------------------------------
DATENSCHUTZRICHTLINIE = """\
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
"""

# Edits that turn DATENSCHUTZRICHTLINIE into its second version (data/samples_v2/).
DATENSCHUTZ_V2_EDITS = [
    ("Version 2.0, Stand: 1. März 2024. Freigegeben durch die Geschäftsführung am 26. Februar 2024.",
     "Version 2.1, Stand: 1. August 2024. Freigegeben durch die Geschäftsführung am 29. Juli 2024."),
    ("| Viertelstündliche Messwerte | 3 Jahre nach Erhebung | Abrechnung und Netzbetrieb |",
     "| Viertelstündliche Messwerte | 2 Jahre nach Erhebung | Abrechnung und Netzbetrieb |"),
    ("spätestens innerhalb von 24 Stunden nach Bekanntwerden, an die Datenschutzbeauftragte.",
     "spätestens innerhalb von 12 Stunden nach Bekanntwerden, an die Datenschutzbeauftragte."),
    ("Datenschutzbeauftragte.\n\n# § 6 Auftragsverarbeitung",
     "Datenschutzbeauftragte.\n\n(5) Vor der Anzeige viertelstündlicher Messwerte im Kundenportal ist eine\n"
     "Datenschutz-Folgenabschätzung durchzuführen; sie wurde am 18. Juli 2024 abgeschlossen.\n\n"
     "# § 6 Auftragsverarbeitung"),
    ("Diese Richtlinie tritt am 1. März 2024 in Kraft und ersetzt die Version 1.3 vom 1. Juni 2020.",
     "Diese Richtlinie tritt in der Version 2.1 am 1. August 2024 in Kraft und ersetzt die Version 2.0 vom\n"
     "1. März 2024."),
]

# ---------------------------------------------------------------------------------------
# 7. Post-incident report (English, DOCX with headings and two tables)
# ---------------------------------------------------------------------------------------
INCIDENT_REPORT = """\
= Post-Incident Report INC-2024-031: Lumen Data Gateway rejected meter connections

Severity: P2. Date of incident: 27 February 2024. Duration: 47 minutes (06:12 to 06:59 CET). Author:
Jonas Albrecht, Head of IT. Status: final, 8 March 2024.

# Summary

On the morning of 27 February 2024, the active node of the Lumen Data Gateway cluster, lumen-gw-01,
stopped accepting new connections from smart meter gateways. For 47 minutes, approximately 6,200 meters
could not deliver their readings. No data was lost, because the smart meter gateways buffered their
readings locally and sent them again after the service had been restored.

# Timeline

| Time (CET) | Event |
| 06:04 | The meter gateway vendor rolls out firmware 4.8.2 to 6,900 smart meter gateways |
| 06:12 | Monitoring raises an alarm: error rate for incoming connections above 20 percent |
| 06:19 | The on-call engineer finds error LDG-1042 in /var/log/lumen/gateway.log |
| 06:31 | Manual failover to lumen-gw-02; the standby node reaches the same limit within two minutes |
| 06:44 | gateway.max_connections raised from 256 to 1024 on both nodes and configuration reloaded |
| 06:59 | Error rate back to normal; incident downgraded |

# Root Cause

The firmware update changed the reconnect behaviour of the smart meter gateways: after the short network
interruption caused by the update, all devices reconnected at the same moment without any random delay.
The configured limit of 256 concurrent connections per node, a value inherited from the pilot phase in
2022, was far below the vendor's recommendation of at least 1024 for installations with more than 5,000
smart meter gateways. The manual failover did not help because both nodes were configured with the same
connection limit.

# Impact

Readings from about 6,200 meters arrived up to 50 minutes late. Billing was not affected, and no readings
were lost. The customer service centre received three calls from commercial customers whose energy
management dashboards showed gaps. Information security was not affected.

# What went well

- Monitoring detected the problem eight minutes after the firmware rollout started.
- The devices' local buffers prevented any loss of data.
- The error code LDG-1042 pointed directly to the cause.

# What went wrong

- The connection limit had not been reviewed since the pilot phase.
- The runbook recommended a failover, which cannot help when both nodes share the same limit.
- The vendor did not announce the firmware rollout to us in advance.

# Corrective and preventive actions

| ID | Action | Owner | Status |
| CA-1 | Raise gateway.max_connections to 1024 on all nodes | Jonas Albrecht | Done |
| CA-2 | Ask the vendor to add a randomised reconnect delay to the firmware | Tobias Brandt | Done (firmware 4.8.3) |
| CA-3 | Alert when connections exceed 80 percent of the limit | IT Operations | Done |
| CA-4 | Load test with 1,500 simulated connections before the upgrade to version 3.2 | Jonas Albrecht | Open |
| CA-5 | Review all configuration values inherited from the pilot phase | Jonas Albrecht | Open |
| CA-6 | Update the failover runbook with a section on the connection limit | IT Operations | Done |

# Lessons learned

Configuration values chosen for a pilot must be reviewed before a system goes into large-scale operation.
Redundancy only protects against failures of individual nodes, not against a limit that applies to all
nodes alike. Firmware rollouts by external vendors must be coordinated with IT Operations.
"""

# ---------------------------------------------------------------------------------------
# 8. Betriebshandbuch Wasserwerk (German operations manual, ODT with text:h headings)
# ---------------------------------------------------------------------------------------
BETRIEBSHANDBUCH_WASSERWERK = """\
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
"""

# ---------------------------------------------------------------------------------------
# 9. Information security policy (English policy, ODT with headings)
# ---------------------------------------------------------------------------------------
SECURITY_POLICY = """\
= Information Security Policy

Stadtwerke Birkenau GmbH. Version 3.1, approved by the Management Board on 11 January 2024. Policy owner:
Priya Raman, Information Security Officer.

# 1 Purpose

This policy sets out the principles by which Stadtwerke Birkenau protects the confidentiality, integrity
and availability of its information and systems. As operator of water supply and energy networks, the
company is part of the critical infrastructure and must keep its services running even under attack.

# 2 Scope

The policy applies to all employees, apprentices, contractors and service providers with access to
company information. It covers office IT, the operational technology of the waterworks and the grids,
and cloud services. The Lumen Data Gateway and the meter data management system are in scope.

# 3 Roles and Responsibilities

The Management Board is accountable for information security. The Information Security Officer maintains
this policy, coordinates the handling of security incidents and reports to the Management Board every
quarter. System owners are responsible for the secure operation of their systems. Every employee is
responsible for protecting the information entrusted to them.

# 4 Access Control

Access rights are granted according to the principle of least privilege. Multi-factor authentication is
mandatory for remote access and for all administrative accounts. Passwords for user accounts must have at
least 14 characters; passwords for administrative accounts must have at least 20 characters. Passwords are
not changed periodically, but immediately if there is any suspicion that they have been compromised.

System owners review the access rights of their systems every quarter. Accounts of employees who leave
the company are disabled on their last working day.

# 5 Cryptography

Data in transit must be encrypted with TLS 1.2 or higher. From 2024 onwards, new systems and new
configurations must require TLS 1.3 as the minimum version. Exceptions for legacy devices that do not
support TLS 1.3 must be recorded in the exception register. Keys must be at least RSA 3072 bits or ECDSA
P-256; certificates are issued for a maximum of 398 days.

# 6 Patch and Vulnerability Management

Security updates are installed according to the severity of the vulnerability. Critical vulnerabilities
(CVSS score of 9.0 or higher) must be fixed within 7 days, high-severity vulnerabilities (CVSS 7.0 to 8.9)
within 30 days and all others within 90 days. Updates to operational technology are installed in
coordination with the plant managers during planned maintenance windows.

# 7 Incident Reporting

Every employee must report a security incident or a suspected incident immediately, and at the latest
within one hour of detection, to the IT service desk or to security@stadtwerke-birkenau.example. Outside
office hours, the IT on-call service must be called. The Information Security Officer decides whether the
incident must be reported to the authorities. If personal data are affected, the Data Protection Officer
must also be informed in accordance with the data protection policy.

# 8 Mobile Working

Company information may only be processed on company-managed devices. Laptops and smartphones must use
full-disk encryption, and the screen must lock automatically after five minutes of inactivity. Public
Wi-Fi networks may only be used via the company VPN.

# 9 Exceptions

Exceptions to this policy must be requested in writing, justified and approved by the Information
Security Officer. They are recorded in the exception register, are valid for a maximum of 12 months and
must then be reviewed.

# 10 Compliance and Review

The Information Security Officer reviews this policy at least once a year. Violations of this policy may
lead to disciplinary measures.
"""

# ---------------------------------------------------------------------------------------
# 10. Runbook (English Markdown with code fences)
# ---------------------------------------------------------------------------------------
RUNBOOK_FAILOVER = """\
# Runbook: Lumen Data Gateway failover and recovery

Owner: IT Operations, Stadtwerke Birkenau. Last reviewed: 2024-03-12. Applies to the production cluster
with the nodes lumen-gw-01 (data centre North) and lumen-gw-02 (data centre South).

## 1 When to use this runbook

Use this runbook when monitoring reports that the active gateway node is unhealthy, when smart meter
gateways have not delivered readings for more than 10 minutes, or before planned maintenance on a node.

Targets: the service must be restored within 15 minutes (RTO). Because the smart meter gateways buffer
their readings, no data may be lost (RPO of zero).

## 2 Check the cluster state

Log in to one of the nodes as a user with the operator or admin role and run:

```bash
lumenctl cluster status
lumenctl status --node lumen-gw-01
tail -n 200 /var/log/lumen/gateway.log | grep -E 'LDG-(1042|2001|4100)'
```

The cluster status lists every node with its role (active or standby) and the time of its last
heartbeat. A node whose last heartbeat is older than 6 seconds is considered failed.

## 3 Automatic failover

If the active node fails, the standby node takes over automatically once the failover timeout has
expired. In our configuration, cluster.failover_timeout_ms is 6000, so the switch happens after about six
seconds. Check afterwards that the new active node accepts connections and that the number of connections
is rising again.

## 4 Manual failover

1. Announce the failover in the ops-gateway chat channel.
2. Promote the standby node:

   ```bash
   # run on lumen-gw-02 as a user with the admin role
   lumenctl cluster promote --node lumen-gw-02
   ```

3. Confirm that lumen-gw-02 now reports the role active and that the connection count is rising.
4. Drain the previously active node so that it can be maintained:

   ```bash
   lumenctl cluster drain --node lumen-gw-01
   ```

Caution: in version 3.2.0 the promote command can hang if the heartbeat interval is set above 2000
milliseconds. Keep cluster.heartbeat_interval_ms at the default of 1500.

## 5 Connection limit reached (LDG-1042)

If the log shows LDG-1042, the node has reached its connection limit. Do not fail over: the standby node
has the same limit and will be overloaded within minutes, as happened during incident INC-2024-031.
Instead, raise the limit on both nodes and reload the configuration:

```bash
# on BOTH nodes, one after the other
sudo sed -i 's/max_connections: .*/max_connections: 1024/' /etc/lumen/gateway.yaml
lumenctl config validate && lumenctl reload
```

Reloading keeps existing connections open, so the change takes effect without interrupting data delivery.

## 6 Fail back

Once the cause has been fixed, return the original node to the active role during the next maintenance
window on Saturday between 06:00 and 10:00. Do not fail back during the morning peak between 05:30 and
07:30, when most smart meter gateways send their daily readings.

## 7 Escalation

If the service has not been restored after 15 minutes, escalate to the Head of IT, Jonas Albrecht, and
open a priority ticket with Lumen Systems support under contract number LS-2022-0815. Attach a
diagnostic bundle created with:

```bash
lumenctl support-bundle --since 24h --output /tmp/lumen-support.tar.gz
```
"""

# ---------------------------------------------------------------------------------------
# 11. Release notes (English Markdown)
# ---------------------------------------------------------------------------------------
RELEASE_NOTES = """\
# Lumen Data Gateway release notes

These release notes list the changes in each version of the Lumen Data Gateway. Versions follow semantic
versioning: minor versions add features and remain compatible, major versions may remove deprecated
configuration keys.

## Version 3.2.0 (4 March 2024)

### New features

- The new configuration key gateway.tls.min_version sets the minimum accepted TLS version (1.2 or 1.3). The default remains 1.2.
- The IEC 60870-5-104 source adapter now supports redundancy groups with up to four connections.
- The support bundle removes passwords and private keys automatically before it is written.

### Changes

- The configuration key gateway.maxConn is deprecated and replaced by gateway.max_connections. The old key will be removed in version 4.0.
- The default value of storage.retention_days has been reduced from 14 to 7 days.
- LUMEN_LOG_LEVEL now accepts the value warn; the previous spelling warning remains available as an alias.

### Fixed

- A memory leak in the master data cache that occurred when gateway.cache.ttl_seconds was set to 0.
- Buffered data was sometimes replayed out of order after a sink had been unavailable for more than one hour.

### Known issues

- The cluster promote command can hang if cluster.heartbeat_interval_ms is greater than 2000. Workaround: keep the default of 1500 milliseconds.

### Upgrade notes

Upgrades from 3.1.x require no migration of the buffer. Installations still running 2.x must first be
upgraded to 3.0. Replace the deprecated key gateway.maxConn in your configuration before upgrading to 4.0.

## Version 3.1.4 (15 January 2024)

### Fixed

- Token renewal failed when gateway.auth.token_ttl was set to more than 86400 seconds.
- The admin port 9443 did not honour gateway.bind_address.

## Version 3.1.0 (2 October 2023)

### New features

- Authentication via OpenID Connect (gateway.auth.mode set to oidc).
- Prometheus metrics are available on the admin port 9443 under the path /metrics.
- The command lumenctl config validate checks a configuration file without restarting the service.

## Version 3.0.0 (5 June 2023)

### Changes

- New buffer format; buffers from version 2.x are converted automatically on the first start.
- The REST API was moved to the path /api/v1. The old paths without a version prefix were removed.
"""

# ---------------------------------------------------------------------------------------
# 12. Kundenportal FAQ (German HTML web page; only <main> is content)
# ---------------------------------------------------------------------------------------
KUNDENPORTAL_FAQ = """\
= Häufige Fragen zum Kundenportal

Hier finden Sie Antworten auf die häufigsten Fragen rund um das Kundenportal der Stadtwerke Birkenau.
Ihre Frage ist nicht dabei? Unser Kundenservice hilft Ihnen gern weiter.

# Registrierung und Anmeldung

## Was brauche ich für die Registrierung?

Sie benötigen Ihre Vertragskontonummer, die Zählernummer und eine E-Mail-Adresse. Die
Vertragskontonummer finden Sie oben rechts auf jeder Rechnung. Nach der Registrierung erhalten Sie eine
E-Mail mit einem Bestätigungslink, den Sie innerhalb von 48 Stunden aufrufen müssen.

## Ich habe mein Passwort vergessen. Was nun?

Klicken Sie auf der Anmeldeseite auf „Passwort vergessen“ und geben Sie Ihre E-Mail-Adresse ein. Sie
erhalten einen Link, mit dem Sie ein neues Passwort festlegen können. Der Link ist zwei Stunden gültig.

## Warum kann ich mich nicht mehr anmelden?

Nach fünf Fehlversuchen hintereinander sperren wir Ihren Zugang zu Ihrer Sicherheit für 30 Minuten.
Danach können Sie es erneut versuchen oder über „Passwort vergessen“ ein neues Passwort vergeben.

# Zählerstand und Abschlag

## Wie übermittle ich meinen Zählerstand?

Wählen Sie im Menü „Zählerstand“ den Zähler aus und tragen Sie den Stand ohne Nachkommastellen ein. Weicht
der Wert stark vom erwarteten Verbrauch ab, bitten wir Sie, ein Foto des Zählers hochzuladen.

## Kann ich meinen Abschlag selbst ändern?

Ja. Sie können Ihren monatlichen Abschlag im Kundenportal zwischen 50 und 150 Prozent des von uns
berechneten Betrags anpassen. Änderungen, die Sie mindestens fünf Werktage vor der nächsten Fälligkeit
vornehmen, gelten bereits für diesen Abschlag.

## Ich habe ein intelligentes Messsystem. Sehe ich meinen Verbrauch?

Ja. Für Zähler mit intelligentem Messsystem zeigt das Kundenportal Ihren Verbrauch als Tageswerte an.
Viertelstündliche Werte zeigen wir nur an, wenn Sie unter „Datenschutz-Einstellungen“ ausdrücklich
eingewilligt haben. Ihre Einwilligung können Sie jederzeit widerrufen.

# Rechnungen und Dokumente

## Wo finde ich meine Rechnungen?

Alle Rechnungen und Vertragsunterlagen der letzten fünf Jahre finden Sie im Bereich „Postfach“. Wenn Sie
die papierlose Rechnung aktivieren, erhalten Sie Ihre Rechnung nur noch elektronisch und werden per
E-Mail benachrichtigt, sobald ein neues Dokument bereitsteht.

# Datenschutz und Sicherheit

## Wie schützen Sie meine Daten?

Die Verbindung zum Kundenportal ist verschlüsselt, und Ihre Daten werden ausschließlich in
Rechenzentren in Deutschland gespeichert. Zusätzlich können Sie in den Kontoeinstellungen die
Zwei-Faktor-Authentifizierung einschalten.

## Wie lösche ich mein Konto?

Unter „Kontoeinstellungen“ finden Sie die Schaltfläche „Konto löschen“. Ihre Zugangsdaten werden dann
sofort gelöscht. Rechnungsdaten bewahren wir so lange auf, wie es gesetzliche Aufbewahrungsfristen
vorschreiben.
"""

# ---------------------------------------------------------------------------------------
# 13. Lumen REST API quick start (English HTML docs page)
# ---------------------------------------------------------------------------------------
API_QUICKSTART = """\
= REST API Quick Start

The REST API of the Lumen Data Gateway lets you read meter data, query the status of devices and manage
sinks. All endpoints are served by the gateway itself under the base path /api/v1 on the regular data
port, which is 8443 unless configured otherwise.

# Authentication

Every request needs an access token. Request a token by sending your client ID and client secret to the
token endpoint:

```
curl -s -X POST https://gateway.example:8443/api/v1/auth/token \\
     -d client_id=mdm-reader -d client_secret="$LUMEN_CLIENT_SECRET"
```

The response contains the token and its lifetime in seconds. Tokens are valid for 3600 seconds unless the
operator has changed gateway.auth.token_ttl. Send the token in the Authorization header as a bearer
token. When a token has expired, the API answers with HTTP 401 and the error code LDG-2015.

# Reading meter data

Readings of a single meter are returned by the endpoint GET /api/v1/meters/{meter_id}/readings. Use the
parameters from and to with timestamps in ISO 8601 format to select a time range. A single request may
cover at most 31 days. Energy values are returned in watt-hours, each with a quality flag that is either
measured, estimated or substituted.

# Pagination

List endpoints use cursor-based pagination. The parameter limit sets the page size; the default is 500
entries and the maximum is 5000 entries per page. If more data is available, the response contains a
next_cursor value that you pass as the cursor parameter of the next request.

# Rate limits

Each token may send up to 600 requests per minute. If you exceed this limit, the API responds with HTTP
status 429 and a Retry-After header that states how many seconds to wait before the next request.

# Error handling

| HTTP status | Meaning |
| 400 | The request is malformed, for example because of an invalid time range |
| 401 | The token is missing, invalid or expired |
| 403 | The token does not grant access to the requested meter or sink |
| 404 | The meter or sink does not exist |
| 429 | The rate limit has been exceeded |
| 503 | The node is in standby or the sink is unavailable |

# Versioning

Version 1 of the API is stable. Incompatible changes are only introduced under a new path such as
/api/v2. Endpoints that are going to be removed are announced in the release notes at least six months in
advance.
"""

# ---------------------------------------------------------------------------------------
# 14. Protokoll Werkausschuss (German meeting minutes, plain text with TOPs)
# ---------------------------------------------------------------------------------------
PROTOKOLL_WERKAUSSCHUSS = """\
Stadtwerke Birkenau GmbH – Werkausschuss

Protokoll der Sitzung des Werkausschusses vom 12. März 2024

Ort: Rathaus Birkenau, Sitzungssaal 1
Beginn: 17:00 Uhr
Ende: 19:05 Uhr
Vorsitz: Bürgermeister Thomas Reinhardt
Protokoll: Miriam Köhler

Anwesend:
- Thomas Reinhardt (Vorsitz)
- Gabriele Fuchs, Renate Lindner, Stefan Wagner, Hakan Yıldız, Petra Zimmermann (Mitglieder)
- Dr. Katrin Vogelsang (Geschäftsführerin der Stadtwerke, beratend)
- Martin Hellwig (Technischer Leiter, zu TOP 4)
Entschuldigt: Klaus Bauer

Tagesordnung:
TOP 1: Eröffnung und Feststellung der Beschlussfähigkeit
TOP 2: Genehmigung des Protokolls vom 23. Januar 2024
TOP 3: Wasserpreise ab 1. Januar 2025
TOP 4: Sanierung des Hochbehälters Eichberg – Vergabe der Bauleistungen
TOP 5: Bericht zum Datenschutz
TOP 6: Verschiedenes


TOP 1: Eröffnung und Feststellung der Beschlussfähigkeit

Der Vorsitzende eröffnete die Sitzung um 17:00 Uhr, begrüßte die Anwesenden und stellte die
ordnungsgemäße Ladung sowie die Beschlussfähigkeit fest. Von sieben stimmberechtigten Mitgliedern waren
sechs anwesend. Einwände gegen die Tagesordnung wurden nicht erhoben.


TOP 2: Genehmigung des Protokolls vom 23. Januar 2024

Das Protokoll der Sitzung vom 23. Januar 2024 wurde ohne Änderungen genehmigt.

Beschluss: Das Protokoll wird genehmigt. Abstimmung: einstimmig (6 Ja-Stimmen).


TOP 3: Wasserpreise ab 1. Januar 2025

Frau Dr. Vogelsang erläuterte die Kalkulation der Wasserpreise für das Jahr 2025. Gestiegene Kosten für
Energie, Material und Personal sowie die anstehenden Investitionen in den Hochbehälter Eichberg und in die
Netzerneuerung machten eine Anpassung erforderlich; die Preise waren zuletzt 2019 angepasst worden. Der
Arbeitspreis soll von 2,48 EUR auf 2,69 EUR je Kubikmeter (netto) steigen, der Grundpreis von 9,50 EUR
pro Monat bleibt unverändert. Für einen Dreipersonenhaushalt mit einem Jahresverbrauch von 120
Kubikmetern ergeben sich Mehrkosten von 25,20 EUR netto im Jahr.

Herr Wagner fragte nach einer sozialen Staffelung der Preise. Frau Dr. Vogelsang verwies auf die
Härtefallregelung der Stadt; eine Staffelung sei im Wassertarif nicht vorgesehen.

Beschluss 2024/17: Der Werkausschuss empfiehlt dem Aufsichtsrat, den Arbeitspreis für Trinkwasser zum
1. Januar 2025 auf 2,69 EUR je Kubikmeter (netto) festzusetzen. Der Grundpreis bleibt unverändert.
Abstimmung: 5 Ja-Stimmen, 1 Gegenstimme, 0 Enthaltungen.


TOP 4: Sanierung des Hochbehälters Eichberg – Vergabe der Bauleistungen

Herr Hellwig berichtete über die Ausschreibung der Bauleistungen. Der 1962 errichtete Hochbehälter weist
in beiden Kammern Risse in der Innenbeschichtung auf. Es gingen vier Angebote ein; das wirtschaftlichste
Angebot legte die Hartmann Bau GmbH vor. Die Bauzeit ist von April 2024 bis Juni 2025 geplant. Die beiden
Kammern werden nacheinander saniert, sodass die Versorgung der Hochzone durchgehend gesichert ist. Die
Kostenaufstellung ist diesem Protokoll als Anlage 1 beigefügt.

Beschluss 2024/18: Der Werkausschuss stimmt der Vergabe der Bauleistungen für die Sanierung des
Hochbehälters Eichberg an die Hartmann Bau GmbH zum Angebotspreis von 1.862.350 EUR brutto zu.
Abstimmung: einstimmig (6 Ja-Stimmen).


TOP 5: Bericht zum Datenschutz

Die Datenschutzbeauftragte Frau Krüger stellte die neu gefasste Datenschutzrichtlinie (Version 2.0) vor,
die am 1. März 2024 in Kraft getreten ist. Wesentliche Neuerungen sind Regeln für viertelstündliche
Messwerte aus intelligenten Messsystemen und verbindliche Löschfristen. Im Jahr 2023 wurden zwei
Datenschutzverletzungen an die Aufsichtsbehörde gemeldet, beide fristgerecht; in einem Fall war eine
Rechnung an eine falsche Adresse versandt worden.

Beschluss: Der Bericht wird zur Kenntnis genommen. Eine Abstimmung war nicht erforderlich.


TOP 6: Verschiedenes

Frau Zimmermann fragte nach dem Stand des Smart-Meter-Rollouts. Frau Dr. Vogelsang teilte mit, dass bis
Ende Februar 2024 rund 12.900 Messstellen mit intelligenten Messsystemen ausgestattet worden sind. Die
nächste Sitzung des Werkausschusses findet am 7. Mai 2024 statt.

Der Vorsitzende schloss die Sitzung um 19:05 Uhr.

gez. Thomas Reinhardt, Vorsitzender
gez. Miriam Köhler, Protokollführerin


Anlage 1: Kostenaufstellung Sanierung Hochbehälter Eichberg

Baustelleneinrichtung und Wasserhaltung:           96.000,00 EUR
Betoninstandsetzung und Beschichtung Kammer 1:    612.000,00 EUR
Betoninstandsetzung und Beschichtung Kammer 2:    612.000,00 EUR
Erneuerung Rohrleitungen und Armaturen:           158.000,00 EUR
Lüftung und Zugangssicherung:                      87.000,00 EUR
Summe netto:                                    1.565.000,00 EUR
Umsatzsteuer 19 %:                                297.350,00 EUR
Summe brutto:                                   1.862.350,00 EUR


Anlage 2: Preisblatt Trinkwasser ab 1. Januar 2025

Arbeitspreis: 2,69 EUR/m³ netto (2,88 EUR/m³ brutto einschließlich 7 % Umsatzsteuer)
Grundpreis Zähler bis Q3 = 4: 9,50 EUR pro Monat netto (10,17 EUR brutto)
"""

# ---------------------------------------------------------------------------------------
# 15. Pressemitteilung Wasserpreis (German press release, plain text)
# ---------------------------------------------------------------------------------------
PRESSEMITTEILUNG = """\
PRESSEMITTEILUNG

Stadtwerke Birkenau passen Wasserpreis zum 1. Januar 2025 an

Birkenau, 21. März 2024. Der Aufsichtsrat der Stadtwerke Birkenau GmbH hat in seiner Sitzung am 19. März
2024 auf Empfehlung des Werkausschusses beschlossen, den Arbeitspreis für Trinkwasser zum 1. Januar 2025
anzupassen. Der Preis je Kubikmeter steigt von 2,65 EUR auf 2,88 EUR (jeweils einschließlich 7 Prozent
Umsatzsteuer). Der monatliche Grundpreis bleibt unverändert.

Für einen Dreipersonenhaushalt mit einem durchschnittlichen Verbrauch von 120 Kubikmetern im Jahr bedeutet
das Mehrkosten von 26,96 EUR brutto pro Jahr, also rund 2,25 EUR im Monat.

„Seit der letzten Anpassung im Jahr 2019 sind unsere Kosten für Energie, Material und Personal deutlich
gestiegen. Gleichzeitig investieren wir in den kommenden zwei Jahren rund 2,1 Millionen Euro allein in
die Sanierung des Hochbehälters Eichberg“, erklärt Geschäftsführerin Dr. Katrin Vogelsang. „Mit dem neuen
Preis sichern wir eine Trinkwasserversorgung, die auch in Zukunft zuverlässig und von hoher Qualität ist.“

Auch nach der Anpassung liegt der Wasserpreis in Birkenau unter dem Durchschnitt vergleichbarer Städte
in der Region. Alle Kundinnen und Kunden werden spätestens sechs Wochen vor Inkrafttreten schriftlich
über die neuen Preise informiert. Haushalte, die Sozialleistungen beziehen, können sich an die
Härtefallstelle der Stadt Birkenau wenden.

Über die Stadtwerke Birkenau: Die Stadtwerke Birkenau GmbH versorgt rund 41.200 Haushalte und Betriebe
mit Strom, Wasser und Fernwärme. Das Unternehmen ist eine hundertprozentige Tochter der Stadt Birkenau und
beschäftigt 264 Mitarbeiterinnen und Mitarbeiter.

Pressekontakt: Julia Berger, Unternehmenskommunikation, Telefon 0800 4711 150,
presse@stadtwerke-birkenau.example
"""

# ---------------------------------------------------------------------------------------
# 16. Depot charging project status report (English, DOCX): decisions with votes, open items
#     with owners and due dates, risks and blockers, a milestone table. Added for the
#     analysis goldenset (eval/analysis_goldenset.yaml); its topic (charging the electric
#     service fleet at the depot) overlaps no other document.
# ---------------------------------------------------------------------------------------
DEPOT_CHARGING_REPORT = """\
= Depot Charging Project – Status Report No. 4 (June 2024)

Project: charging infrastructure for the electric service fleet at the Am Kanal depot. Reporting period:
1 May to 31 May 2024. Report date: 7 June 2024. Project manager: Ahmed Karimi. Project sponsor: Elena
Novak, Head of Fleet Management.

# 1 Summary

The civil works for the first charging row with 12 charge points were completed on 28 May 2024, two days
ahead of plan. Commissioning of the charge points depends on the new transformer station, whose delivery
has been postponed by the manufacturer to 19 July 2024. The overall project status is therefore amber. Of
the approved budget of EUR 1,240,000, EUR 612,500 had been spent or committed by 31 May 2024.

# 2 Progress in the reporting period

- Cable trenches and foundations for charging row A were finished.
- The contract for the charge point management software was awarded to Voltaris GmbH.
- Twenty drivers completed the training on the new charging procedure.

# 3 Decisions of the project board

The project board met on 5 June 2024. Ahmed Karimi presented the revised schedule.

Decision PB-24-11: The project board approves the revised schedule with commissioning of charging row A on
2 September 2024. Vote: 5 in favour, 0 against, 1 abstention.

Decision PB-24-12: The board agreed to rent a mobile transformer for EUR 8,400 per month until the
permanent transformer station is in operation. Vote: unanimous.

The proposal to add a second charging row in 2024 was rejected; it will be reconsidered in the budget round
for 2025.

# 4 Open items

Open item OI-7: Confirm the delivery date of the transformer station in writing. Owner: Jana Schubert.
Due: 14 June 2024. Status: open.

Open item OI-8: Obtain the grid operator's approval for the mobile transformer. Owner: Markus Weber. Due:
21 June 2024. Status: open.

Open item OI-9: Update the fire protection concept for the depot hall. Owner: Markus Weber. Due: 31 May
2024. Status: done.

Action: Elena Novak will present the charging rules for drivers to the works council by 28 June 2024.

Ahmed Karimi is to circulate the updated cost plan to the project board by 12 June 2024.

# 5 Risks and blockers

Risk R-3 (high): Further delays in the transformer delivery would push commissioning into the winter, when
the civil works for the connection cannot be carried out. Mitigation: the mobile transformer (PB-24-12).

Risk R-5 (medium): The charge point management software has not yet been tested with the vehicle model
used by the meter readers; charging could fail for these vehicles. Mitigation: a test with two vehicles in
July.

Blocker: Without the grid operator's approval, the mobile transformer must not be connected.

# 6 Milestones

| Milestone | Planned | Status |
| Civil works charging row A | 31 May 2024 | Done (28 May 2024) |
| Delivery of the transformer station | 19 July 2024 | Delayed |
| Commissioning of charging row A | 2 September 2024 | Planned |
| Final acceptance and handover to Fleet Management | 31 October 2024 | Planned |

# 7 Contacts

Project office: depot-charging@stadtwerke-birkenau.example, phone +49 6201 4711 270. The project wiki is
at https://wiki.stadtwerke-birkenau.example/depot-charging.
"""

# ---------------------------------------------------------------------------------------
# 17. ChargeCtl setup guide (English runbook, Markdown): ordered installation steps,
#     environment variables with defaults, CLI flags, HTTP endpoints and status codes,
#     operating notes, troubleshooting and open points. Added for the analysis goldenset;
#     same depot project as no. 16, no overlap with the other documents. (A German version
#     was tried first: the English embedding model ranked it high for unrelated German
#     questions, so the guide is English.)
# ---------------------------------------------------------------------------------------
CHARGECTL_SETUP = """\
# Setup guide: ChargeCtl charge management server at the Am Kanal depot

Owner: Electrical Engineering, Markus Weber. Last updated: 10 June 2024. This guide describes how to set up,
start and run the server of the ChargeCtl 2.4 charge management system. ChargeCtl controls the charge points
of the depot over OCPP 1.6 and shares the available connection capacity between the vehicles.

## 1 Prerequisites

- PostgreSQL 15 or later with an empty database named chargectl.
- Python 3.11 and the chargectl package from the internal package mirror.
- A network connection into the charge point VLAN 40; the charge points connect on TCP port 9000.

## 2 Installation

1. Create the system user: `sudo useradd --system chargectl`
2. Install the package: `pip install chargectl==2.4.1`
3. Enter the environment variables from section 3 in the file /etc/chargectl/env.
4. Create the database schema: `chargectl migrate --dry-run` shows the changes, `chargectl migrate` applies them.
5. Enable and start the service: `sudo systemctl enable --now chargectl`
6. Run `chargectl status` and check that all 12 charge points are reported as connected.

## 3 Environment variables

| Variable | Meaning | Default |
|---|---|---|
| CHARGECTL_DATABASE_URL | Connection to the database | none (required) |
| CHARGECTL_OCPP_PORT | Port for the connections of the charge points | 9000 |
| CHARGECTL_MAX_SITE_KW | Maximum total power of all charge points in kW | 400 |
| CHARGECTL_LOG_FORMAT | Output format of the logs, text or json | text |
| CHARGECTL_TZ | Time zone for charging schedules | Europe/Berlin |

The server is started with `chargectl serve --workers 4 --bind 0.0.0.0`. With the flag --read-only it accepts
no charging commands and only shows the state of the charge points.

## 4 HTTP interface

The fleet management software accesses ChargeCtl over an HTTP interface under the path /v2. Every request
needs the API key in the X-Api-Key header.

- GET /v2/chargers returns all charge points with their state and current power.
- POST /v2/chargers/{id}/release releases a blocked charge point.
- PUT /v2/schedules/{vehicle} sets the charging schedule of a vehicle.

If the interface answers with 409, the charge point is currently taken by another charging schedule. Status
code 422 means that the schedule asks for more power than CHARGECTL_MAX_SITE_KW allows.

## 5 Operating notes

Warning: never set CHARGECTL_MAX_SITE_KW above the 400 kW agreed with the grid operator, or the protection
device of the transformer station trips.

After a restart of the server, the charge points reconnect one after another; it takes up to five minutes
until all of them are connected again.

Note: in continuous operation CHARGECTL_LOG_FORMAT should be set to json, because the central log server
only evaluates this format.

## 6 Troubleshooting

- A charge point does not connect: check in VLAN 40 that the charge point reaches port 9000, and restart it with `chargectl reset --charger <id>`.
- Error CC-204 (database not reachable): check CHARGECTL_DATABASE_URL and the state of the PostgreSQL service.
- A schedule is rejected (HTTP 422): reduce the requested power or move the schedule into the night.

## 7 Open points before go-live

- Agree the load profile for winter operation; owner: Markus Weber, due 19 July 2024.
- Set up notifications to the fleet on-call service when a charge point fails; owner: Jana Schubert, due 26 July 2024.
- Set up the backup of the chargectl database; done on 7 June 2024.

Risk: as long as the backup has not been tested, charging schedules can be lost after a server failure.
"""

# Edits that turn PROTOKOLL_WERKAUSSCHUSS into its corrected second version (data/samples_v2/):
# a changed vote (TOP 3), a completion date added to Beschluss 2024/18 (TOP 4), a follow-up
# report (TOP 5), a commitment (TOP 6) and a new appendix with the action list.
PROTOKOLL_V2_EDITS = [
    ("Protokoll der Sitzung des Werkausschusses vom 12. März 2024\n",
     "Protokoll der Sitzung des Werkausschusses vom 12. März 2024\n"
     "Berichtigte Fassung vom 26. März 2024 (Berichtigungen zu TOP 3 bis TOP 6)\n"),
    ("Abstimmung: 5 Ja-Stimmen, 1 Gegenstimme, 0 Enthaltungen.",
     "Abstimmung: 4 Ja-Stimmen, 1 Gegenstimme, 1 Enthaltung."),
    ("zum Angebotspreis von 1.862.350 EUR brutto zu.\nAbstimmung: einstimmig (6 Ja-Stimmen).",
     "zum Angebotspreis von 1.862.350 EUR brutto zu.\nDie Bauleistungen sind bis zum 30. Juni 2025 "
     "abzuschließen. Abstimmung: einstimmig (6 Ja-Stimmen)."),
    ("Beschluss: Der Bericht wird zur Kenntnis genommen. Eine Abstimmung war nicht erforderlich.",
     "Beschluss: Der Bericht wird zur Kenntnis genommen. Frau Krüger berichtet in der Sitzung am 7. Mai "
     "2024\nüber die Umsetzung der Löschfristen. Eine Abstimmung war nicht erforderlich."),
    ("ausgestattet worden sind. Die\nnächste Sitzung",
     "ausgestattet worden sind. Frau Dr. Vogelsang\nsagte zu, bis zum 30. April 2024 einen "
     "aktualisierten Zeitplan für den weiteren Rollout vorzulegen. Die\nnächste Sitzung"),
    ("Grundpreis Zähler bis Q3 = 4: 9,50 EUR pro Monat netto (10,17 EUR brutto)\n",
     "Grundpreis Zähler bis Q3 = 4: 9,50 EUR pro Monat netto (10,17 EUR brutto)\n\n\n"
     "Anlage 3: Aufgabenliste\n\n"
     "Nr. | Aufgabe | Verantwortlich | Frist\n"
     "1 | Aktualisierten Zeitplan für den Smart-Meter-Rollout vorlegen | Dr. Katrin Vogelsang | 30. April 2024\n"
     "2 | Anfrage von Herrn Wagner zur sozialen Staffelung schriftlich beantworten | Dr. Katrin Vogelsang | 7. Mai 2024\n"
     "3 | Bauablaufplan Hochbehälter Eichberg an die Ausschussmitglieder versenden | Martin Hellwig | 15. April 2024\n"),
]

# ---------------------------------------------------------------------------------------
# Catalogue. `src` is DSL for pdf/docx/odt/html, verbatim text for md/txt.
# ---------------------------------------------------------------------------------------
DOCS = [
    dict(name="lumen_handbuch.pdf", lang="de", fmt="pdf", src=LUMEN_HANDBUCH, outline=True,
         author="Lumen Systems GmbH", footer="Lumen Data Gateway 3.2 – Installations- und Betriebshandbuch",
         page_word="Seite", date=(2024, 3, 4),
         kind="technical manual", structure="numbered chapters 1–5 with sub-chapters (2.1 Voraussetzungen, "
         "2.2 Konfiguration, …), PDF outline/bookmarks, config keys, YAML code block, error-code table, page footer"),
    dict(name="annual_report_2023.pdf", lang="en", fmt="pdf", src=ANNUAL_REPORT_2023, outline=False,
         author="Stadtwerke Birkenau GmbH", footer="Stadtwerke Birkenau – Annual Report 2023",
         page_word="Page", date=(2024, 5, 15),
         kind="annual report", structure="numbered headings 1–7 with 2.1/2.2/4.1/4.2, NO outline, key-figure table, page footer"),
    dict(name="merkblatt_fernwaerme.pdf", lang="de", fmt="pdf", src=MERKBLATT_FERNWAERME, outline=True,
         hyphenate=True, author="Stadtwerke Birkenau GmbH", footer="Stadtwerke Birkenau – Merkblatt Fernwärme",
         page_word="Seite", date=(2024, 1, 10),
         kind="customer leaflet", structure="UNnumbered headings found only via the PDF outline; words hyphenated at "
         "line ends ('Übergabe-'/'station', 'Heizkörper-'/'anlagen'); one paragraph runs across the page break"),
    dict(name="benutzungsordnung_kundenportal.pdf", lang="de", fmt="pdf", src=BENUTZUNGSORDNUNG, outline=False,
         author="Stadtwerke Birkenau GmbH", footer="Benutzungsordnung Kundenportal – Fassung vom 1. Februar 2024",
         page_word="Seite", date=(2024, 2, 1),
         kind="policy / terms of use", structure="§ 1 … § 11 headings with numbered sub-paragraphs (1), (2); no outline"),
    dict(name="steering_committee_minutes_2024-04-18.docx", lang="en", fmt="docx", src=STEERING_MINUTES,
         author="Lena Hoffmann", date=(2024, 4, 19),
         kind="meeting minutes", structure="Title + Heading 1 'Agenda item 1: …' … 'Agenda item 6: …', 'Decision:' "
         "paragraphs, bullet list of attendees, action-item table"),
    dict(name="datenschutzrichtlinie.docx", lang="de", fmt="docx", src=DATENSCHUTZRICHTLINIE,
         author="Sabine Krüger", date=(2024, 2, 26),
         kind="policy (v1; v2 in data/samples_v2/)", structure="Title + Heading 1 '§ 1 Geltungsbereich' … '§ 10 Inkrafttreten', "
         "sub-paragraphs (1), (2); retention table in § 7"),
    dict(name="incident_report_INC-2024-031.docx", lang="en", fmt="docx", src=INCIDENT_REPORT,
         author="Jonas Albrecht", date=(2024, 3, 8),
         kind="post-incident report", structure="Title + Heading 1 sections, timeline table, actions table, bullet lists"),
    dict(name="betriebshandbuch_wasserwerk.odt", lang="de", fmt="odt", src=BETRIEBSHANDBUCH_WASSERWERK,
         author="Martin Hellwig", date=(2024, 1, 1),
         kind="operations manual", structure="text:h outline-level 1/2 headings (1 … 6, 2.1 … 5.3), table"),
    dict(name="information_security_policy.odt", lang="en", fmt="odt", src=SECURITY_POLICY,
         author="Priya Raman", date=(2024, 1, 11),
         kind="security policy", structure="text:h outline-level 1 headings '1 Purpose' … '10 Compliance and Review'"),
    dict(name="runbook_gateway_failover.md", lang="en", fmt="md", src=RUNBOOK_FAILOVER,
         kind="operations runbook", structure="Markdown #/## headings (numbered '## 1 …'), numbered list with indented code fences, ```bash fences "
         "containing '# …' shell comments that must not become headings"),
    dict(name="lumen_release_notes.md", lang="en", fmt="md", src=RELEASE_NOTES,
         kind="release notes", structure="Markdown ## per version, ### New features/Changes/Fixed/Known issues, bullet lists"),
    dict(name="kundenportal_faq.html", lang="de", fmt="html", src=KUNDENPORTAL_FAQ, site="stadtwerke",
         kind="FAQ web page", structure="<nav>, <header>, cookie banner, <script>, <aside>, <footer> around <main> "
         "with h1/h2/h3 (only <main> is content)"),
    dict(name="lumen_api_quickstart.html", lang="en", fmt="html", src=API_QUICKSTART, site="lumen",
         kind="API documentation web page", structure="docs-site chrome (nav, sidebar, footer, two <script>s) around <main> "
         "with h1/h2, <pre><code>, table"),
    dict(name="protokoll_werkausschuss_2024-03-12.txt", lang="de", fmt="txt", src=PROTOKOLL_WERKAUSSCHUSS,
         kind="meeting minutes", structure="plain text; agenda list, then 'TOP 1: …' … 'TOP 6: …' sections, "
         "'Beschluss:' / 'Beschluss 2024/17:' lines, 'Anlage 1: …', 'Anlage 2: …'"),
    dict(name="pressemitteilung_wasserpreis_2025.txt", lang="de", fmt="txt", src=PRESSEMITTEILUNG,
         kind="press release", structure="plain text, no headings except the headline"),    dict(name="depot_charging_status_2024-06.docx", lang="en", fmt="docx", src=DEPOT_CHARGING_REPORT,
         author="Ahmed Karimi", date=(2024, 6, 7),
         kind="project status report", structure="Title + numbered Heading 1 sections; 'Decision PB-…:' "
         "paragraphs with votes, 'Open item OI-…' paragraphs with Owner/Due/Status, risks and a blocker, "
         "milestone table"),
    dict(name="chargectl_setup_guide.md", lang="en", fmt="md", src=CHARGECTL_SETUP,
         kind="setup guide (runbook)", structure="Markdown # title and numbered '## 1 …' sections; numbered "
         "installation steps with inline commands, a pipe table of environment variables with defaults, "
         "CLI flags, HTTP endpoints and status codes, 'Warning:'/'Note:' paragraphs, open points"),
]

# The documents that get a second version in data/samples_v2/ (same file name), and the
# date used for a version's file metadata (txt files have none).
V2 = {"datenschutzrichtlinie.docx": DATENSCHUTZ_V2_EDITS,
      "protokoll_werkausschuss_2024-03-12.txt": PROTOKOLL_V2_EDITS}
V2_DATE = {"datenschutzrichtlinie.docx": (2024, 7, 29)}

# Latin-1 encoded legacy text for data/bad/altbestand_latin1.txt
ALTBESTAND_LATIN1 = """\
Aktenvermerk (Altbestand, übernommen aus dem Archiv der Wasserversorgung)

Betreff: Übergabe der Schlüssel für das Pumpwerk Süd
Datum: 14.09.1998

Die Schlüssel für das Pumpwerk Süd wurden am heutigen Tag an Herrn Jürgen Maßmann übergeben.
Die Schließanlage umfaßt drei Generalschlüssel und zwölf Einzelschlüssel. Der Empfang wurde
schriftlich bestätigt. Größere Störungen sind im Übergabezeitraum nicht aufgetreten.

gez. Bärbel Schöning
"""
