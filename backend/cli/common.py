"""What every command of `python -m backend` shares: the services of this data dir and
who acts (`--as USER`, resolved in backend/bridge/calls.py, as a serving process resolves
it for the CLI). Commands call these through the module (`common._rs()`), so a test can
replace them in one place."""
from __future__ import annotations

from backend.bridge.calls import actor_of, scope_of  # noqa: F401  (the commands' actor)
from backend.config import Settings


def _rs():
    from backend.services.container import Ragscope

    return Ragscope(Settings())


def _ingestor():
    from backend.ingest.service import Ingestor

    return Ingestor(_rs())
