"""The technical half of the labelled classification set (code documentation, source code,
API references, runbooks, requirement specifications), kept apart from
data/make_classification_set.py, which writes them with the others."""
from __future__ import annotations

DOCS: list[tuple[str, str, str]] = []  # (file name, primary type, content)


def doc(name: str, label: str, text: str) -> None:
    DOCS.append((name, label, text))


# ---- code_documentation -----------------------------------------------------------------------
doc("widget/README.md", "code_documentation", """
# meterctl

Command-line tool to read smart meters over the local network.

## Installation

```bash
pip install meterctl
```

## Usage

```bash
meterctl scan --subnet 10.0.4.0/24
meterctl read 10.0.4.17 --register energy
```

## Configuration

`meterctl` reads `~/.config/meterctl.toml`. Set `METERCTL_TIMEOUT` to change the timeout.

## Development

Run the tests with `pytest`. Contributions are welcome; see CONTRIBUTING.
""")
doc("docs/adr-0004-message-queue.md", "code_documentation", """
# ADR 4: Use a message queue between gateway and billing

Status: accepted. Date: 2024-02-20.

## Context

The billing service polls the gateway every minute. Under load the gateway slows down.

## Decision

We put a message queue between gateway and billing. The gateway publishes readings; billing
consumes them at its own pace.

## Consequences

- One more component to operate (`docker run rabbitmq:3`).
- Billing must handle duplicate messages.
""")

# ---- source_code_file -------------------------------------------------------------------------
doc("meter_reader.py", "source_code_file", '''
"""Read meter values from the gateway's REST API."""
from __future__ import annotations

import json
import urllib.request


class MeterReader:
    """Reads the latest value of a meter."""

    def __init__(self, base_url: str, token: str):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def latest(self, meter_id: str) -> float:
        req = urllib.request.Request(f"{self.base_url}/api/v1/meters/{meter_id}/latest",
                                     headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return float(json.load(resp)["value"])


def main() -> None:
    reader = MeterReader("https://gateway.example", "token")
    print(reader.latest("M-1001"))


if __name__ == "__main__":
    main()
''')
doc("handler.go", "source_code_file", """
package gateway

import (
	"encoding/json"
	"net/http"
)

// Reading is one meter value.
type Reading struct {
	MeterID string  `json:"meter_id"`
	Value   float64 `json:"value"`
}

// LatestHandler answers with the latest reading of a meter.
func LatestHandler(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("meter")
		reading, err := store.Latest(id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(reading)
	}
}
""")

# ---- api_reference ----------------------------------------------------------------------------
doc("api_meters.md", "api_reference", """
# Meters API

Base URL: `https://gateway.example/api/v1`. Every request needs a bearer token.

## GET /meters

Lists meters. Query parameters: `page`, `per_page`.

Response `200 OK`:

```json
{"items": [{"id": "M-1001", "type": "water"}], "total": 1}
```

## GET /meters/{id}/latest

Returns the latest reading. `404` if the meter is unknown.

## POST /meters/{id}/readings

Stores a reading. Request body: `{"value": 12.5, "time": "2024-05-01T00:00:00Z"}`.
Status codes: `201 Created`, `400 Bad Request`, `401 Unauthorized`.

## DELETE /meters/{id}

Removes a meter. Status `204 No Content`.
""")
doc("seite_schnittstelle.html", "api_reference", """
<!DOCTYPE html><html lang="de"><head><title>Abrechnungsschnittstelle</title></head><body><main>
<h1>Abrechnungsschnittstelle</h1>
<p>Die Schnittstelle übergibt Zählerstände an das Abrechnungssystem.</p>
<h2>Authentifizierung</h2><p>Jede Anfrage braucht ein Access Token im Header
<code>Authorization: Bearer &lt;token&gt;</code>.</p>
<h2>Zählerstand übermitteln</h2>
<pre><code>POST /billing/v2/readings
Content-Type: application/json

{"meter": "W-2231", "value": 341.2}</code></pre>
<p>Antwort: Statuscode 201. Bei fehlerhaften Daten Statuscode 422 mit Fehlerliste.</p>
<h2>Abrechnung abrufen</h2>
<pre><code>GET /billing/v2/invoices/{customer}</code></pre>
<p>Response: Liste der Rechnungen als JSON.</p>
</main></body></html>
""")

# ---- runbook_or_ops_doc -----------------------------------------------------------------------
doc("restore_database.md", "runbook_or_ops_doc", """
# Runbook: restore the billing database from backup

Owner: IT Operations. On-call: see the rota.

## When to use

Use this runbook when the billing database is corrupted or data was deleted by mistake.

## Steps

1. Stop the billing service: `sudo systemctl stop billing`.
2. Find the latest backup: `ls -lt /backup/billing | head`.
3. Restore it:

   ```bash
   pg_restore --clean --dbname billing /backup/billing/latest.dump
   ```

4. Start the service again: `sudo systemctl start billing`.
5. Check the health endpoint.

## Rollback

If the restore fails, keep the service stopped and escalate to the database team.
""")
doc("dokument_31.txt", "runbook_or_ops_doc", """
Vorgehen bei Ausfall der Leitwarte

Gilt für: Bereitschaftsdienst Wasser. Stand: März 2024.

Schritt 1: Ausfall bestätigen. Prüfen, ob die Bildschirme der Leitwarte schwarz sind oder
nur die Verbindung fehlt.

Schritt 2: Auf die Ersatzleitwarte im Pumpwerk Süd umschalten. Dazu den Schalter S4 auf
„Ersatz“ stellen.

Schritt 3: Die Pumpen im Handbetrieb fahren, bis die Leitwarte wieder läuft.

Schritt 4: Eskalation an die Bereitschaft Elektrotechnik, wenn der Ausfall länger als
30 Minuten dauert.

Rückfall: Nach der Reparatur den Schalter S4 zurückstellen und die Meldungen quittieren.
""")

# ---- requirement_spec -------------------------------------------------------------------------
doc("lastenheft_portal.md", "requirement_spec", """
# Lastenheft Kundenportal 2.0

## 1 Ausgangslage

Das bestehende Portal ist zehn Jahre alt und nicht barrierefrei.

## 2 Anforderungen

- REQ-01: Das Portal muss die WCAG 2.1 AA erfüllen.
- REQ-02: Kundinnen und Kunden müssen Zählerstände mit Foto übermitteln können.
- REQ-03: Das System soll Abschlagsänderungen ohne Sachbearbeitung ermöglichen.
- REQ-04: Die Anmeldung muss eine Zwei-Faktor-Authentisierung anbieten.

## 3 Nicht-funktionale Anforderungen

- NFR-01: Antwortzeit unter 2 Sekunden für 95 % der Seitenaufrufe.
- NFR-02: Verfügbarkeit 99,5 % im Monat.

## 4 Akzeptanzkriterien

Jede Anforderung gilt als erfüllt, wenn der zugehörige Abnahmetest bestanden ist.
""")
doc("dokument_40.txt", "requirement_spec", """
Software Requirements Specification – Outage Notification Service

1 Purpose
This document specifies the requirements of the service that informs customers about planned
and unplanned outages.

2 Functional requirements
FR-1 The system shall send an SMS to affected customers within 10 minutes of an outage report.
FR-2 The system shall let customers subscribe by postcode.
FR-3 The system shall publish outages on the website map.

3 Non-functional requirements
NFR-1 The service shall handle 50,000 messages per hour.
NFR-2 Personal data must be deleted 30 days after the outage ends.

4 Acceptance criteria
Each requirement is verified by a test case in the acceptance test plan.
""")
