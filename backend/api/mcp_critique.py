"""The critique tool of the MCP server (backend/api/mcp_server.py calls `register`): the same
service and JSON shape as `POST /api/critique` (backend/api/routes_critique.py)."""
from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from backend.services import critique as critique_service


def register(mcp: MCPServer, rs, auth, tool) -> None:
    @mcp.tool(description="Critique an answer of answer_question (its message_id) or a given "
                          "text: the fact checker (claims against the sources), stylist, "
                          "structure analyst and format checker rate it 0-10 with issues and "
                          "suggestions; if one is below its threshold the model revises the "
                          "text with the critiques, up to `rounds` times. Returns every round "
                          "and the final text with status validated, revised or failed.")
    @tool
    def critique_answer(ctx: Context,
                        message_id: Annotated[int | None, Field(ge=1, le=2**53)] = None,
                        text: Annotated[str | None, Field(min_length=1,
                                                          max_length=100_000)] = None,
                        sources: Annotated[list[str], Field(max_length=20)] = [],  # noqa: B006
                        question: Annotated[str, Field(max_length=4000)] = "",
                        rounds: Annotated[int | None, Field(ge=0, le=10)] = None
                        ) -> dict[str, Any]:
        actor = auth.actor(ctx)
        if (message_id is None) == (text is None):
            raise critique_service.CritiqueInputError(
                "text", "give message_id or text, not both and not neither")
        if message_id is not None:
            return critique_service.critique_message(rs, actor, message_id, rounds=rounds)
        return critique_service.critique_text(rs, actor, text, sources=list(sources),
                                              question=question, rounds=rounds)
