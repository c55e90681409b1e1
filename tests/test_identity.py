"""Folder and version identity (backend/ingest/identity.py): the same file name in the same
collection from another folder becomes a new version (one active document), configurably
only with similar content; either way can be forced; folders report skipped files."""
from __future__ import annotations

import pytest

from backend.ingest.identity import Identity, similarity
from backend.store import repo

V1 = ("# Betriebsanweisung Pumpwerk\n\nDie Pumpen P1 und P2 laufen im Wechselbetrieb. Bei Störung "
      "schaltet die Leittechnik automatisch auf die Reservepumpe um. Der Bereitschaftsdienst "
      "prüft danach den Motorschutz und quittiert die Meldung im Leitsystem.\n")
V2 = V1.replace("P1 und P2", "P1, P2 und P3")
OTHER = ("# Betriebsanweisung Kantine\n\nDie Kantine öffnet um 11 Uhr. Bestellungen für "
         "Besprechungen bitte bis zum Vortag 14 Uhr an die Kantinenleitung senden.\n")


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def _active_docs(ingestor, collection):
    with ingestor.store.session() as s:
        docs, _ = repo.list_documents(s, repo.DocumentFilter(collections=[collection],
                                                             statuses=["active"]))
        return [(d.id, d.filename, len(d.versions)) for d in docs]


def test_same_name_in_another_folder_becomes_a_new_version(ingestor, tmp_path):
    a = ingestor.ingest_paths([_write(tmp_path / "alt", "anweisung.md", V1)], collection="ops")[0]
    b = ingestor.ingest_paths([_write(tmp_path / "neu", "anweisung.md", V2)], collection="ops")[0]
    assert a.status == "new" and b.status == "new_version"
    assert b.document_id == a.document_id and "same file name" in b.note
    assert _active_docs(ingestor, "ops") == [(a.document_id, "anweisung.md", 2)]
    with ingestor.store.session() as s:
        doc = repo.get_document(s, a.document_id)
        active = [v for v in doc.versions if v.is_active]
        assert [v.number for v in active] == [2]
        assert active[0].meta["source_uri"].endswith("neu/anweisung.md")
        expected = repo.active_chunk_ids(s)
    assert ingestor.rs.vector_index.ids() == expected  # the old version left the index


def test_other_collection_or_no_collection_keeps_documents_apart(ingestor, tmp_path):
    a = ingestor.ingest_paths([_write(tmp_path / "a", "anweisung.md", V1)], collection="ops")[0]
    b = ingestor.ingest_paths([_write(tmp_path / "b", "anweisung.md", V2)], collection="it")[0]
    c = ingestor.ingest_paths([_write(tmp_path / "c", "anweisung.md", OTHER)])[0]
    assert len({a.document_id, b.document_id, c.document_id}) == 3


def test_forcing_either_way(ingestor, tmp_path):
    a = ingestor.ingest_paths([_write(tmp_path / "a", "anweisung.md", V1)], collection="ops")[0]
    apart = ingestor.ingest_paths([_write(tmp_path / "b", "anweisung.md", V2)], collection="ops",
                                  identity=Identity.new_document())[0]
    assert apart.status == "new" and apart.document_id != a.document_id
    forced = ingestor.ingest_paths([_write(tmp_path / "c", "kantine.md", OTHER)], collection="ops",
                                   identity=Identity.version_of(a.document_id))[0]
    assert forced.status == "new_version" and forced.document_id == a.document_id
    assert "as asked" in forced.note


def test_name_and_content_mode_needs_similar_text(make_rs, tmp_path):
    from backend.ingest.service import Ingestor

    ing = Ingestor(make_rs(version_match="name_and_content", version_match_similarity=0.5))
    a = ing.ingest_paths([_write(tmp_path / "a", "anweisung.md", V1)], collection="ops")[0]
    b = ing.ingest_paths([_write(tmp_path / "b", "anweisung.md", V2)], collection="ops")[0]
    c = ing.ingest_paths([_write(tmp_path / "c", "anweisung.md", OTHER)], collection="ops")[0]
    assert b.document_id == a.document_id and "in common" in b.note
    assert c.status == "new" and c.document_id != a.document_id
    assert "only" in c.note and "RAGSCOPE_VERSION_MATCH_SIMILARITY" in c.note
    with ing.store.session() as s:
        assert [v.number for v in repo.get_document(s, c.document_id).versions] == [1]


def test_version_match_off(make_rs, tmp_path):
    from backend.ingest.service import Ingestor

    ing = Ingestor(make_rs(version_match="off"))
    a = ing.ingest_paths([_write(tmp_path / "a", "anweisung.md", V1)], collection="ops")[0]
    b = ing.ingest_paths([_write(tmp_path / "b", "anweisung.md", V2)], collection="ops")[0]
    assert a.document_id != b.document_id


def test_similarity():
    assert similarity(V1, V1) == 1.0
    assert similarity(V1, V2) > 0.5 > similarity(V1, OTHER)


def test_folder_ingest_names_every_skipped_file(ingestor, tmp_path, capsys, monkeypatch):
    from backend.cli import main as cli

    inbox = tmp_path / "inbox"
    _write(inbox, "bericht.md", V1)
    _write(inbox, "daten.xyz", "not supported")
    _write(inbox, ".versteckt.md", V1)
    _write(inbox / ".git", "config", "[core]")
    monkeypatch.setattr("backend.cli.common._ingestor", lambda: ingestor)
    assert cli.main(["ingest", str(inbox), "-q"]) == 0
    out = capsys.readouterr().out
    root = inbox.resolve()
    assert "4 files: 1 new, 3 skipped" in out
    assert f"SKIPPED {root}/daten.xyz: unsupported file type '.xyz'" in out
    assert f"SKIPPED {root}/.versteckt.md: hidden file" in out
    assert f"SKIPPED {root}/.git: hidden folder" in out


def test_cli_identity_flags(ingestor, tmp_path, capsys, monkeypatch):
    from backend.cli import main as cli

    monkeypatch.setattr("backend.cli.common._ingestor", lambda: ingestor)
    cli.main(["ingest", str(_write(tmp_path / "a", "x.md", V1)), "-c", "ops", "-q"])
    cli.main(["ingest", str(_write(tmp_path / "b", "x.md", V2)), "-c", "ops", "-q"])
    assert "note: x.md: became version 2 of document" in capsys.readouterr().out
    cli.main(["ingest", str(_write(tmp_path / "c", "x.md", OTHER)), "-c", "ops", "-q",
              "--as-new-document"])
    assert "1 new" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["ingest", "x", "--new-version-of"])


def test_watched_folder_reports_skipped_files_with_reason(make_rs, tmp_path):
    from backend.crawl.service import CrawlService

    rs = make_rs(ingest_roots=str(tmp_path))
    inbox = tmp_path / "inbox"
    _write(inbox, "bericht.md", V1)
    _write(inbox, "daten.xyz", "not supported")
    _write(inbox, ".entwurf.md", V2)
    svc = CrawlService(rs)
    p = svc.watch_folder(str(inbox), "inbox")
    events = {e.url.rsplit("/", 1)[-1]: (e.outcome, e.reason) for e in svc.events(p.run_id)}
    assert events["bericht.md"][0] == "new"
    assert events["daten.xyz"] == ("skipped", "unsupported file type '.xyz'")
    assert events[".entwurf.md"] == ("skipped", "hidden file (the name starts with '.')")


def test_same_names_within_one_folder_tree_stay_apart(ingestor, tmp_path):
    tree = tmp_path / "protokolle"
    _write(tree / "2024-01", "protokoll.md", V1)
    _write(tree / "2024-02", "protokoll.md", OTHER)
    first = ingestor.ingest_paths([tree], collection="ops")
    assert [o.status for o in first] == ["new", "new"]
    _write(tree / "2024-03", "protokoll.md", V2)  # next month, same tree: a document of its own
    again = {o.status for o in ingestor.ingest_paths([tree], collection="ops")}
    assert again == {"unchanged", "new"}
    assert len(_active_docs(ingestor, "ops")) == 3
    elsewhere = ingestor.ingest_paths([_write(tmp_path / "eingang", "protokoll.md", V2 + "\nNeu.")],
                                      collection="ops")[0]
    assert elsewhere.status == "new_version"  # from another place: joined by name


def test_crawled_pages_are_never_matched_by_name(ingestor):
    a = ingestor.ingest_bytes(b"<html><body><main><h1>Anfahrt</h1><p>Mit dem Bus.</p></main>"
                              b"</body></html>", "index.html", collection="web",
                              source_kind="crawl", source_uri="https://a.example/anfahrt/")
    b = ingestor.ingest_bytes(b"<html><body><main><h1>Preise</h1><p>Ab 2025 teurer.</p></main>"
                              b"</body></html>", "index.html", collection="web",
                              source_kind="crawl", source_uri="https://a.example/preise/")
    assert a.status == b.status == "new" and a.document_id != b.document_id
