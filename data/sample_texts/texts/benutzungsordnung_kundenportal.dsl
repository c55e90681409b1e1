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
