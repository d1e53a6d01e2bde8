"""replay convert answers a record nested thousands deep as any bad line: exit 2 and
``path:line: message`` (issue 39, finding 9), never a RecursionError traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from soccerbt.__main__ import main


@pytest.mark.parametrize("text, message", [
    ('{"a":' * 50_000 + "1" + "}" * 50_000, "a JSON record nested deeper than 64 levels"),
    ('{"type":"header","a":' + "[" * 500 + "]" * 500 + "}", "nested deeper than 64 levels"),
])
def test_a_deeply_nested_record_is_refused_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         text: str, message: str) -> None:
    old = tmp_path / "deep.jsonl"
    old.write_text(text + "\n")
    new = tmp_path / "new.mcap"
    assert main(["replay", "convert", str(old), str(new)]) == 2
    assert capsys.readouterr().err.strip() == f"{old}:1: {message}"
    assert not new.exists()
