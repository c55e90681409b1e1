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
