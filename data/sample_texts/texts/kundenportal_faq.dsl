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
