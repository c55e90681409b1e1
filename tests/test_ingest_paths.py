"""What may be ingested from the file system: symlinks out of an ingested or watched folder
are refused (per file, the batch goes on), nothing in the data dir is ever ingested, and a
file swapped for a symlink after listing is not followed."""
from __future__ import annotations

import os

import pytest

from backend.security import auth
from backend.security.access import Scope
from backend.crawl.service import CrawlService
from backend.ingest.service import Ingestor
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo
from backend.store.models import DocumentVersion

EVERYTHING = Scope.everything()

SECRET = "root:x:0:0:Geheimzugang Tresorraum Kennwort Zebrafink:/root:/bin/bash\n"


@pytest.fixture
def layout(tmp_path):
    """tmp/secret/passwd.txt (outside), tmp/var (the data dir, with the real cookie key),
    tmp/inbox with two real files and symlinks out, into the data dir and within."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd.txt").write_text(SECRET)
    (secret / "mehr.txt").write_text(SECRET)
    key = auth.cookie_key(auth.AuthPaths.under(tmp_path / "var"))  # var/auth/cookie_key
    inbox = tmp_path / "inbox"
    (inbox / "unter").mkdir(parents=True)
    (inbox / "wehr.md").write_text("# Wehr\n\nDie Pegelmessung am Wehr erfolgt stündlich.\n")
    (inbox / "unter" / "mehr.txt").write_text("Die Schleuse bleibt im Januar geschlossen.\n")
    (inbox / "passwd.txt").symlink_to(secret / "passwd.txt")
    (inbox / "key.txt").symlink_to(tmp_path / "var" / "auth" / "cookie_key")
    (inbox / "geheim").symlink_to(secret, target_is_directory=True)
    (inbox / "kopie.md").symlink_to(inbox / "wehr.md")  # within the folder
    return {"inbox": inbox, "secret": secret, "key": key, "data_dir": tmp_path / "var"}


def _texts(rs) -> str:
    with rs.store.session() as s:
        return "\n".join(v.text or "" for v in s.query(DocumentVersion).all())


def _lexical(rs, query) -> set[str]:
    res = Retriever(rs).retrieve(query, RetrievalParams(k=10, policy="lexical_only"),
                                 scope=EVERYTHING)
    return {h.filename for h in res.hits}


def test_folder_ingest_refuses_symlinks_out_of_the_folder_and_ingests_the_rest(ingestor, layout):
    inbox = layout["inbox"].resolve()
    outs = {o.filename: o for o in ingestor.ingest_paths([layout["inbox"]], collection="c")}
    assert outs["wehr.md"].status == "new" and outs["mehr.txt"].status == "new"
    assert outs["passwd.txt"].status == "refused"
    assert outs["passwd.txt"].error == (f"{inbox}/passwd.txt: symlink to a target outside "
                                        f"{inbox} (not followed)")
    assert outs["geheim"].status == "refused" and "outside" in outs["geheim"].error
    assert outs["key.txt"].status == "refused"
    assert outs["key.txt"].error.startswith(f"{inbox}/key.txt: symlink to a target inside "
                                            "ragscope's own data")
    assert outs["kopie.md"].status == "skipped" and outs["kopie.md"].ok
    assert not outs["passwd.txt"].ok and not outs["key.txt"].ok
    text = _texts(ingestor.rs)
    assert "Pegelmessung" in text and "Schleuse" in text
    assert "Zebrafink" not in text and layout["key"] not in text
    assert _lexical(ingestor.rs, "Zebrafink Tresorraum") == set()
    with ingestor.store.session() as s:
        assert repo.counts(s)["documents"] == 2  # refused paths are not stored at all


def test_paths_named_directly_into_the_data_dir_are_refused(ingestor, layout, tmp_path):
    data_dir = layout["data_dir"].resolve()
    (data_dir / "notiz.txt").write_text("Eine Notiz im Datenverzeichnis.\n")
    link = tmp_path / "schluessel.txt"
    link.symlink_to(data_dir / "auth" / "cookie_key")
    outside = tmp_path / "lesbar.txt"
    outside.write_text("Diese Datei darf gelesen werden.\n")
    outs = ingestor.ingest_paths([data_dir / "notiz.txt", link, data_dir, outside])
    by = {o.filename: o for o in outs}
    assert by["notiz.txt"].status == by["schluessel.txt"].status == by["var"].status == "refused"
    assert by["notiz.txt"].error == (f"{data_dir}/notiz.txt: inside ragscope's own data "
                                     f"({data_dir}); never ingested")
    assert by["schluessel.txt"].error.startswith(f"{link}: symlink to a target inside "
                                                 "ragscope's own data")
    assert by["lesbar.txt"].status == "new"
    # a folder that contains the data dir is walked without it (skipped as a whole)
    outs = ingestor.ingest_paths([tmp_path])
    inside = [o for o in outs if o.status not in ("refused", "skipped")]
    assert {o.filename for o in inside} >= {"wehr.md", "lesbar.txt"}
    assert [(o.status, o.error) for o in outs if o.filename == "var"] == [
        ("skipped", f"{data_dir}: inside ragscope's own data ({data_dir}); never ingested")]
    assert layout["key"] not in _texts(ingestor.rs)
    assert "Eine Notiz im Datenverzeichnis" not in _texts(ingestor.rs)


def test_file_swapped_for_a_symlink_after_listing_is_not_followed(ingestor, layout):
    inbox = layout["inbox"]
    found = ingestor.rs.path_policy.find([inbox])
    assert {f.name for f in found if f.readable} == {"wehr.md", "mehr.txt"}
    (inbox / "wehr.md").unlink()  # the file becomes a symlink ...
    (inbox / "wehr.md").symlink_to(layout["secret"] / "passwd.txt")
    (inbox / "unter").rename(inbox / "unter_alt")  # ... and a folder above a file too
    (inbox / "unter").symlink_to(layout["secret"], target_is_directory=True)
    outs = {o.filename: o for o in ingestor.ingest_many(((f, None) for f in found),
                                                        total=len(found))}
    assert outs["wehr.md"].status == "refused"
    assert outs["wehr.md"].error.endswith("wehr.md became a symlink after it was listed "
                                          "(not followed)")
    assert outs["mehr.txt"].status == "refused" and "became a symlink" in outs["mehr.txt"].error
    assert "Zebrafink" not in _texts(ingestor.rs)


def test_cli_prints_one_line_per_refused_file_and_exits_1(ingestor, layout, monkeypatch, capsys):
    from backend.cli import main as cli

    monkeypatch.setattr("backend.cli.common._ingestor", lambda: ingestor)
    before = os.umask(0o022)
    try:
        code = cli.main(["ingest", str(layout["inbox"]), "-q"])
        assert os.umask(0o022) == 0o022  # the CLI's private umask is not left behind
    finally:
        os.umask(before)
    err = capsys.readouterr()
    inbox = layout["inbox"].resolve()
    assert code == 1
    assert (f"REFUSED {inbox}/passwd.txt: symlink to a target outside {inbox} (not followed)"
            in err.err.splitlines())
    assert any(ln.startswith(f"REFUSED {inbox}/key.txt: symlink to a target inside")
               for ln in err.err.splitlines())
    assert f"SKIPPED {inbox}/kopie.md: symlink within {inbox}" in err.out  # with the summary
    assert err.out.startswith("6 files: 2 new, 3 refused, 1 skipped;")


def test_watched_folder_refuses_symlinks_and_syncs_the_rest(make_rs, layout, tmp_path):
    rs = make_rs(ingest_roots=str(tmp_path), max_upload_mb=0.01)
    (layout["inbox"] / "gross.txt").write_text("Pegel " * 4000)  # 24 KB, over 10 KiB
    svc = CrawlService(rs)
    p = svc.watch_folder(str(layout["inbox"]), "inbox")
    assert p.status == "done"
    events = {os.path.basename(e.url): (e.outcome, e.reason) for e in svc.events(p.run_id)}
    inbox = layout["inbox"].resolve()
    assert events["wehr.md"] == ("new", "new document")
    assert events["gross.txt"][0] == "failed"  # recorded like any file over the limit
    assert events["gross.txt"][1].endswith("over the upload limit of 0.01 MiB "
                                           "(RAGSCOPE_MAX_UPLOAD_MB)")
    assert events["passwd.txt"] == ("refused", f"symlink to a target outside {inbox} "
                                               "(not followed)")
    assert events["key.txt"][0] == "refused" and "ragscope's own data" in events["key.txt"][1]
    assert events["kopie.md"][0] == "skipped"
    assert p.counters["refused"] == 3 and p.counters["new"] == 2
    assert "Zebrafink" not in _texts(rs) and layout["key"] not in _texts(rs)

    # the watched folder itself swapped for a symlink: the next run refuses it
    (inbox).rename(tmp_path / "inbox_alt")
    inbox.symlink_to(layout["secret"], target_is_directory=True)
    p2 = svc.run("folder-inbox-inbox")
    assert p2.status == "failed" and "is now a symlink" in p2.error
    assert "Zebrafink" not in _texts(rs)


def test_ingestor_refuses_a_file_named_directly_in_the_data_dir(ingestor, layout):
    cookie = layout["data_dir"] / "auth" / "cookie_key"
    out = Ingestor(ingestor.rs).ingest_file(cookie)
    assert out.status == "refused" and "ragscope's own data" in out.error


def test_every_entry_a_folder_walk_does_not_read_is_reported_with_a_reason(ingestor, layout):
    """A symlink without a supported extension out of the folder, a named pipe and a link
    to an unsupported file inside it were left out without a word."""
    inbox = layout["inbox"]
    (inbox / "passwd_noext").symlink_to(layout["secret"] / "passwd.txt")
    (inbox / "etc_passwd").symlink_to("/etc/passwd")
    os.mkfifo(inbox / "pipe.txt")
    (inbox / "bild.xyz").write_bytes(b"x")
    (inbox / "bild_link").symlink_to(inbox / "bild.xyz")
    outs = {o.filename: o for o in ingestor.ingest_paths([inbox], collection="c")}
    root = inbox.resolve()
    assert outs["passwd_noext"].status == "refused"
    assert outs["passwd_noext"].error == (f"{root}/passwd_noext: symlink to a target outside "
                                          f"{root} (not followed)")
    assert outs["etc_passwd"].status == "refused" and "system" in outs["etc_passwd"].error
    assert outs["pipe.txt"].status == "skipped"
    assert outs["pipe.txt"].error == f"{root}/pipe.txt: not a regular file (named pipe)"
    assert outs["bild_link"].status == "skipped" and "unsupported" in outs["bild_link"].error
    assert outs["wehr.md"].status == "new"  # the batch went on
    assert "Zebrafink" not in _texts(ingestor.rs)
