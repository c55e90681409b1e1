"""Bodies of the replayable ask jobs (`/api/ask-jobs`, `/api/ask-sse/{jobId}`)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class AskJobOut(BaseModel):
    job_id: str
    status: Literal["running", "done", "failed", "stale"] = Field(
        description="`stale`: its worker stopped beating (the process died); ask again")
    question: str
    created_at: datetime
    heartbeat_at: datetime
    finished_at: datetime | None
    last_event_id: int = Field(description="id of the newest stored event (0: none yet)")
    error: str
    links: dict[str, str] = Field(description="`self` (this status), `events` (the SSE "
                                  "stream; send `Last-Event-ID` to resume)")
