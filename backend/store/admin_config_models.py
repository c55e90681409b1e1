"""Admin-managed configuration in the database (migration 0028; issue 26, item 7):
versioned system prompts with one active version per scope (`chat`, `chatbots`), run-time
overrides of the safe settings, and the audit log of every change to either (who, when, old,
new). Nothing here is a secret, a path or a URL: backend/services/runtime_settings.py allows
only a listed subset of the settings."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class SystemPromptVersion(Base):
    __tablename__ = "system_prompt_versions"
    __table_args__ = (UniqueConstraint("scope", "version", name="uq_system_prompt_version"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    scope: Mapped[str] = mapped_column(String(20), index=True)  # chat | chatbots
    version: Mapped[int] = mapped_column(Integer)  # 1, 2, … per scope
    text: Mapped[str] = mapped_column(Text)  # the editable rules (the fixed ones stay first)
    note: Mapped[str] = mapped_column(Text, default="")  # why this version
    created_by: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    active: Mapped[bool] = mapped_column(Boolean, default=False, index=True)


class RuntimeSetting(Base):
    __tablename__ = "runtime_settings"
    name: Mapped[str] = mapped_column(String(100), primary_key=True)  # the setting's field name
    value: Mapped[str] = mapped_column(Text)  # JSON
    updated_by: Mapped[str] = mapped_column(String(100))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ConfigAudit(Base):
    __tablename__ = "config_audit"
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), index=True)  # setting | prompt
    name: Mapped[str] = mapped_column(String(100), index=True)  # setting name / prompt scope
    action: Mapped[str] = mapped_column(String(20))  # set | reset | create | activate
    old: Mapped[str | None] = mapped_column(Text)  # JSON (settings) / version number (prompts)
    new: Mapped[str | None] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(100), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
