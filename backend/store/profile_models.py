"""Author profiles (migration 0026; issue 26, seed 000 "Autorenprofil-Auswahl für
Schreibstil"): named style rules a chat session or a chatbot writes by — tone, formality,
form of address, longest sentence, forbidden words and forms, output format (Markdown or
plain text). `chat_sessions.profile_id` and `chatbots.profile_id` reference a profile;
deleting it sets them to NULL (the service does so explicitly and says how many fell back,
the foreign key's ON DELETE SET NULL guards any other path)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class AuthorProfileRow(Base):
    __tablename__ = "author_profiles"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    tone: Mapped[str] = mapped_column(String(200), default="")  # free text: "sachlich"
    formality: Mapped[str] = mapped_column(String(20), default="neutral")  # formal|neutral|informal
    address: Mapped[str] = mapped_column(String(20), default="none")  # sie|du|you|none
    max_sentence_words: Mapped[int | None] = mapped_column(Integer, nullable=True)
    forbidden_words: Mapped[list] = mapped_column(JSON, default=list)
    output_format: Mapped[str] = mapped_column(String(20), default="markdown")  # markdown|plain
    extra_rules: Mapped[str] = mapped_column(Text, default="")  # more rules, one a line
    created_by: Mapped[str] = mapped_column(String(100), default="")
    updated_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)
