"""Settings of the HTTP API and MCP server (`python -m backend api`; docs/api.md)."""
from __future__ import annotations


from pydantic import Field
from pydantic_settings import BaseSettings

class ServingSettings(BaseSettings):
    """A group of `Settings`' fields (use `backend.config.Settings`, which reads them from the
    environment): HTTP API and MCP."""

    api_host: str = Field(
        "127.0.0.1", description="Address `python -m backend api` (HTTP API and MCP) binds to; "
        "127.0.0.1 keeps it on this machine. Another address exposes it: put TLS in front."
    )
    api_port: int = Field(8000, ge=1, le=65535, description="Port of the HTTP API and MCP.")
    mcp_stateless: bool = Field(
        False, description="Serve MCP over streamable HTTP in the SDK's stateless mode: no "
        "session is kept between requests, so any of several API workers can answer each one "
        "(`python -m backend stack` sets it). The legacy SSE transport "
        "(/mcp-sse) keeps a session per connection and needs one worker or sticky routing."
    )
    api_max_body_kb: int = Field(
        1024, ge=1, le=1_048_576, description="Largest request body the API accepts, in KiB "
        "(uploads: RAGSCOPE_MAX_UPLOAD_MB per file instead); more is refused with 413."
    )
    api_max_upload_files: int = Field(
        20, ge=1, le=1000, description="Most files in one API upload (`POST /api/ingest`)."
    )
    api_header_timeout_s: float = Field(
        10.0, gt=0, le=3600, description="Seconds a client has to send a complete request "
        "head after connecting (or after its previous response); then the connection is "
        "closed (slow-client protection; nginx's client_header_timeout is 60 s)."
    )
    api_body_timeout_s: float = Field(
        30.0, gt=0, le=3600, description="Seconds the API waits for the next part of a request "
        "body before it answers 408 and closes the connection (between two reads, like "
        "nginx's client_body_timeout)."
    )
    api_rate_per_token: int = Field(
        600, ge=0, le=1_000_000, description="Requests a minute one API token may send to the "
        "HTTP API and MCP endpoints (a token bucket: bursts up to this many, refilled at this "
        "rate); more are answered 429 with Retry-After. 0: no limit."
    )
    api_rate_per_address: int = Field(
        1200, ge=0, le=1_000_000, description="Requests a minute one client address may send "
        "(with or without a token; behind a reverse proxy all clients share its address, so "
        "raise it or set 0 there). 429 with Retry-After beyond it. 0: no limit."
    )
    ask_job_retention_s: int = Field(
        3600, ge=60, le=30 * 86400, description="Seconds a finished ask job (`POST "
        "/api/ask-jobs`: done, failed or stale) and its stored events stay replayable; then "
        "they are deleted (the answer itself stays in the chat session)."
    )
    ask_job_stale_s: float = Field(
        30.0, ge=2, le=3600, description="Seconds without a heartbeat after which a running "
        "ask job counts as stale (its API worker died): its status says `stale` and its "
        "event stream ends with a `job_stale` error. The worker beats every sixth of it."
    )
    api_allowed_hosts: str = Field(
        "", description="Comma-separated extra Host header values the MCP endpoint accepts "
        "(DNS-rebinding guard), e.g. `rag.example.org:443`, when the API is reached through a "
        "name other than 127.0.0.1/localhost."
    )
