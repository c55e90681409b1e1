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
