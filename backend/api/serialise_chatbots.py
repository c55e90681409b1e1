"""The JSON shapes of the chatbot routes, built from ChatbotService's dataclasses."""
from __future__ import annotations

from dataclasses import asdict

from backend.api.serialise import aware, confidence_fields, next_offset, public_source
from backend.chatbots.build import BuildProgress
from backend.chatbots.generate import GeneratedField
from backend.chatbots.service import BotAnswer, BotInfo


def links(slug: str) -> dict[str, str]:
    base = f"/api/chatbots/{slug}"
    return {"self": base, "build": f"{base}/build", "ask": f"{base}/ask",
            "page": f"/chatbot?bot={slug}", "embed": f"/chatbot?bot={slug}&embed=true"}


def bot(info: BotInfo) -> dict:
    return aware({**info.config.to_dict(), "status": info.status,
                  "source_url": info.source_url, "config_version": info.config_version,
                  "created_by": info.created_by, "updated_by": info.updated_by,
                  "created_at": info.created_at, "updated_at": info.updated_at,
                  "published_at": info.published_at, "links": links(info.slug)})


def bot_page(rows: list[BotInfo], total: int, offset: int, limit: int) -> dict:
    return {"items": [bot(b) for b in rows], "total": total, "offset": offset,
            "limit": limit, "next_offset": next_offset(offset, len(rows), total)}


def build(p: BuildProgress) -> dict:
    return {**asdict(p), "progress": round(p.fraction, 4), "resumable": p.resumable}


def generated(g: GeneratedField, saved: bool) -> dict:
    return {**asdict(g), "saved": saved}


def answer(a: BotAnswer) -> dict:
    return {"text": a.text, "fallback_used": a.fallback_used, "session": a.session,
            "message_id": a.message_id, "notice": a.notice, "citations": a.citations,
            "sources": [public_source(s) for s in a.sources],
            "sources_hidden": a.sources_hidden, **confidence_fields(a.citations)}
