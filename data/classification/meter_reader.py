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
