"""Models of knowledge bases and access groups (migration 0016).

A knowledge base holds collections (each collection belongs to exactly one). An access group
grants `read` or `write` (write includes read) on knowledge bases to its members: dashboard
users (`member_kind="user"`, the user name) and API principals (`"principal"`, the
principal's name). A group with `all_users` counts every dashboard user as a member without
a membership row (the default group `everyone` of an existing install). Admins are not
restricted by groups. The rule and its defaults: docs/security.md, "Knowledge bases and
access groups"; the scope computed from these rows: backend/security/access.py."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow

DEFAULT_KNOWLEDGE_BASE = "default"
DEFAULT_GROUP = "everyone"
PERMISSIONS = ("read", "write")
MEMBER_KINDS = ("user", "principal")


class KnowledgeBase(Base):
    __tablename__ = "knowledge_bases"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccessGroup(Base):
    __tablename__ = "access_groups"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    all_users: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccessGrant(Base):
    """One group's permission on one knowledge base: "read" or "write"."""

    __tablename__ = "access_grants"
    group_id: Mapped[int] = mapped_column(
        ForeignKey("access_groups.id", ondelete="CASCADE"), primary_key=True)
    knowledge_base_id: Mapped[int] = mapped_column(
        ForeignKey("knowledge_bases.id", ondelete="CASCADE"), primary_key=True, index=True)
    permission: Mapped[str] = mapped_column(String(10), default="read")


class AccessMember(Base):
    __tablename__ = "access_members"
    __table_args__ = (Index("ix_access_members_member", "member_kind", "member_name"),)
    group_id: Mapped[int] = mapped_column(
        ForeignKey("access_groups.id", ondelete="CASCADE"), primary_key=True)
    member_kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    member_name: Mapped[str] = mapped_column(String(200), primary_key=True)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AclGeneration(Base):
    """One row whose `value` database triggers bump in the transaction of every change to
    the rows a scope is computed from (knowledge bases, groups, grants, members, a
    collection's name or knowledge base; migration 0021): a process may keep computed scopes
    while the value it read them under is unchanged (backend/security/scope_cache.py)."""

    __tablename__ = "acl_generation"
    id: Mapped[int] = mapped_column(primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger, default=0)
