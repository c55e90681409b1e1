"""The ACL matrix's data dir: three knowledge bases with one collection and one document
each, three access groups (one per knowledge base), and a dashboard user for every
combination of the groups, plus an API principal. Used by tests/test_acl.py (service
functions and CLI) and tests/test_acl_pages.py (every page through AppTest)."""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from backend.security import acl, auth
from backend.security.access import Actor
from backend.config import Settings
from backend.services.container import Ragscope

KBS = ("alpha", "beta", "gamma")
GROUP = {"alpha": "g-alpha", "beta": "g-beta", "gamma": "g-gamma"}
PERMISSION = {"alpha": "read", "beta": "write", "gamma": "read"}
COLLECTION = {kb: f"{kb}-docs" for kb in KBS}
FILENAME = {kb: f"{kb}_maintenance.md" for kb in KBS}
TITLE = {"alpha": "Alpha pump handbook", "beta": "Beta valve notes", "gamma": "Gamma gateway guide"}
MARK = {kb: f"{kb.upper()}MARK" for kb in KBS}  # appears only in that document's text
QUERY = "maintenance schedule"
PASSWORD = "matrix-password-1"


def text(kb: str) -> bytes:
    return (f"# {TITLE[kb]}\n\n## Maintenance\n\nThe maintenance schedule of the {MARK[kb]} "
            f"equipment is reviewed every quarter by the {kb} team.\n\n## Contacts\n\n"
            f"Questions about the {MARK[kb]} schedule go to the {kb} desk.\n").encode()


def combos() -> list[tuple[str, ...]]:
    """Every subset of the knowledge bases: (), ('alpha',), ..., ('alpha', 'beta', 'gamma')."""
    return [c for n in range(len(KBS) + 1) for c in itertools.combinations(KBS, n)]


def user_name(kbs: tuple[str, ...]) -> str:
    return "u-" + ("".join(k[0] for k in kbs) or "none")


@dataclass
class Matrix:
    data: Path
    doc: dict[str, int]  # knowledge base -> document id
    version: dict[str, int]  # knowledge base -> active version id

    def rs(self, embedder) -> Ragscope:
        rs = Ragscope(Settings(data_dir=self.data))
        rs.embedder = embedder
        return rs

    @staticmethod
    def actor(kbs: tuple[str, ...], role: str = "viewer") -> Actor:
        return Actor(user_name(kbs), role)

    @staticmethod
    def forbidden(kbs: tuple[str, ...]) -> list[str]:
        """Strings that must not appear in anything shown to a reader of `kbs`."""
        return [s for kb in KBS if kb not in kbs
                for s in (MARK[kb], TITLE[kb], FILENAME[kb], COLLECTION[kb])]


_TEMPLATE: dict = {}  # the matrix built once per test session, closed; never opened again


def build(data: Path, embedder) -> Matrix:
    """The matrix's data dir at `data`: a copy (shutil.copytree) of the one `_build` made
    once in this session, so every module still has a data dir of its own (the same users,
    documents and ids) without ingesting and creating the users again."""
    import shutil

    if not _TEMPLATE:
        made = _build(data.parent / "matrix-template" / "var", embedder)
        _TEMPLATE.update(dir=made.data, doc=made.doc, version=made.version)
    shutil.copytree(_TEMPLATE["dir"], data)
    return Matrix(data, dict(_TEMPLATE["doc"]), dict(_TEMPLATE["version"]))


def _build(data: Path, embedder) -> Matrix:
    from backend.ingest.service import Ingestor

    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = embedder
    auth.bootstrap(data, admin_password="matrix-admin-password")
    users = auth.UserStore(auth.AuthPaths.under(data), bcrypt_rounds=4)
    admin = Actor.system("test-setup")
    for kb in KBS:
        acl.create_knowledge_base(rs, admin, kb, f"the {kb} team's documents")
        acl.writable_collection(rs, admin, COLLECTION[kb], kb)
        acl.create_group(rs, admin, GROUP[kb])
        acl.grant(rs, admin, GROUP[kb], kb, PERMISSION[kb])
    for kbs in combos():
        for role, name in (("viewer", user_name(kbs)), ("editor", user_name(kbs) + "-ed")):
            users.add(name, role, password=PASSWORD)
            for kb in kbs:
                acl.add_member(rs, admin, GROUP[kb], "user", name)
    acl.add_member(rs, admin, GROUP["alpha"], "principal", "bot-a")
    doc, version = {}, {}
    ing = Ingestor(rs)
    for kb in KBS:
        out = ing.ingest_bytes(text(kb), FILENAME[kb], collection=COLLECTION[kb])
        assert out.ok, out.error
        doc[kb], version[kb] = out.document_id, out.version_id
    rs.close()
    return Matrix(data, doc, version)


def dump(value) -> str:
    """Everything a function returned, as one string to search for forbidden names."""
    from dataclasses import asdict, is_dataclass

    def default(o):
        if is_dataclass(o):
            return asdict(o)
        if isinstance(o, (set, frozenset)):
            return sorted(o)
        return str(o)

    return json.dumps(value, default=default, ensure_ascii=False)
