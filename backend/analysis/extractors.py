"""The registry of extractors: name, rules version, what it finds and its columns.
Bump an extractor's `version` whenever its rules change: cached artifacts of the old version
are then recomputed (backend/analysis/artifacts.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from backend.analysis.extract_entities import extract_entities
from backend.analysis.extract_deadlines import extract_deadlines
from backend.analysis.extract_actions import extract_actions
from backend.analysis.extract_decisions import extract_decisions
from backend.analysis.extract_notes import (
    extract_operational_notes,
    extract_requirements,
    extract_risks,
)
from backend.analysis.extract_technical import (
    extract_api_surface,
    extract_config_keys,
    extract_setup_steps,
)
from backend.analysis.source import Source
from backend.analysis.types import Item


@dataclass(frozen=True)
class ExtractorSpec:
    name: str
    version: str
    label: str
    description: str
    fields: tuple[str, ...]  # the item fields shown as columns, in order
    fn: Callable[[Source], list[Item]]


EXTRACTORS: dict[str, ExtractorSpec] = {s.name: s for s in (
    ExtractorSpec("decisions", "2", "Decisions",
                  "Beschlüsse, decisions, approvals and rejections, with vote results",
                  ("label", "outcome", "vote"), extract_decisions),
    ExtractorSpec("meeting_actions", "1", "Actions and open points",
                  "Action items, open points and commitments with owner, due date and status",
                  ("id", "owner", "due", "status"), extract_actions),
    ExtractorSpec("deadlines", "2", "Deadlines",
                  "Due dates, scheduled dates and time limits (ISO dates and durations)",
                  ("due", "dates", "durations", "expression"), extract_deadlines),
    ExtractorSpec("requirements", "1", "Requirements",
                  "Obligations and prerequisites (must/shall, muss/darf nur/ist ... zu)",
                  ("strength", "prerequisite"), extract_requirements),
    ExtractorSpec("config_keys", "1", "Configuration keys",
                  "Configuration keys, ENV variables and CLI flags with stated defaults",
                  ("key", "type", "default", "mentions"), extract_config_keys),
    ExtractorSpec("setup_steps", "1", "Setup steps",
                  "Ordered installation, setup and run steps with their commands",
                  ("step", "instruction", "commands"), extract_setup_steps),
    ExtractorSpec("api_surface", "1", "API surface",
                  "Endpoints with HTTP method, base paths, headers and status codes",
                  ("type", "value", "mentions"), extract_api_surface),
    ExtractorSpec("operational_notes", "1", "Operational notes",
                  "Warnings, notes, troubleshooting and instructions for operation",
                  ("kind",), extract_operational_notes),
    ExtractorSpec("risks", "1", "Risks",
                  "Risks, blockers, delays and warning signs",
                  ("kind", "level"), extract_risks),
    ExtractorSpec("entities", "1", "Entities",
                  "Persons with roles, organisations, dates, e-mail, phone, URLs, amounts",
                  ("type", "value", "role", "mentions"), extract_entities),
)}

NAMES: tuple[str, ...] = tuple(EXTRACTORS)


def run_extractor(name: str, src: Source) -> list[Item]:
    return EXTRACTORS[name].fn(src)
