"""backend/config/current.py: the dashboard's settings are built once per RAGSCOPE_*
environment, and a changed variable gives new settings at the next call."""
from pathlib import Path

from backend.config.current import current, current_json


def test_same_environment_same_settings_and_a_change_is_seen(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "a"))
    first = current()
    assert current() is first  # not rebuilt within one environment
    assert first.data_dir == Path(tmp_path / "a")
    assert current_json() == first.model_dump_json()
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "b"))
    assert current().data_dir == Path(tmp_path / "b")  # a changed variable is read
    monkeypatch.setenv("RAGSCOPE_CHUNK_SIZE", "700")
    assert current().chunk_size == 700
    monkeypatch.delenv("RAGSCOPE_CHUNK_SIZE")
    assert current().chunk_size == first.chunk_size  # and unset again
