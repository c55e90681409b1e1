"""Reading server-sent events in tests (the ask streams and ask jobs, docs/api.md)."""
from __future__ import annotations

import json


def parse_sse(lines) -> list[tuple[int | None, str, dict]]:
    """(id, event, data) of each SSE frame in `lines` (decoded lines without newlines)."""
    out, eid, name = [], None, None
    for line in lines:
        if line.startswith("id: "):
            eid = int(line[4:])
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((eid, name, json.loads(line[6:])))
            eid = name = None
    return out
