"""Every channel of a log decodes with the MCAP ecosystem's own decoders, without soccerbt.

A match is recorded as ``soccerbt run --record`` records it (the default: the full record). Then
a Python whose import path holds only the ``mcap`` package, its protobuf decoder
(``mcap-protobuf-support``, with ``protobuf``), ``zstandard`` and ``jsonschema`` (from the dev
extra; ``python -I -S``: no site-packages, no soccerbt) reads every message of every channel:
the protobuf channels through ``mcap_protobuf``'s decoder built from the schema the log
embeds, the JSON channels with ``json`` and validated against their embedded JSON Schema. That is
what Foxglove does with a log; Foxglove cannot run here, so these decoders stand in for it. The
child says what it saw: every count must be the log's, and what a Foxglove user looks for is
there by name (the field and the ball in the scene, the GameController state, the commands, each
robot's node statuses as enum names, its blackboard changes with their writers).
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from soccerbt.__main__ import main
from soccerbt.log.reader import McapLog

pytestmark = pytest.mark.slow  # pytest -m 'not slow' (the quick subset) leaves these out

# the distributions the child may import, and what they import in turn
_DISTRIBUTIONS = ("mcap", "mcap-protobuf-support", "protobuf", "zstandard", "lz4", "jsonschema", "attrs",
                  "jsonschema-specifications", "referencing", "rpds-py", "typing_extensions")

_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
try:
    import soccerbt  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("soccerbt is importable: the test proves nothing")
from collections import Counter
import jsonschema
from google.protobuf.json_format import MessageToDict
from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory

factory = DecoderFactory()
counts, facts = Counter(), {"encodings": {}, "statuses": Counter(), "writers": Counter(), "robots": set(),
                            "scene_ids": set(), "gc_states": set(), "command_robots": set(), "reasons": 0}
validators = {}
with open(sys.argv[2], "rb") as f:
    for schema, channel, message in make_reader(f).iter_messages():
        facts["encodings"][channel.topic] = [channel.message_encoding, schema.encoding, schema.name]
        if channel.message_encoding == "protobuf":
            decoded = MessageToDict(factory.decoder_for(channel.message_encoding, schema)(message.data),
                                    preserving_proto_field_name=True)
        else:
            assert channel.message_encoding == "json" and schema.encoding == "jsonschema", channel.topic
            decoded = json.loads(message.data)
            if schema.id not in validators:
                validators[schema.id] = jsonschema.Draft202012Validator(json.loads(schema.data))
            validators[schema.id].validate(decoded)
        counts[channel.topic] += 1
        if channel.topic == "/match/step":
            for tick in decoded.get("robots", []):
                facts["robots"].add(tick["robot"])
                facts["statuses"].update(t.get("status", "IDLE") for t in tick.get("transitions", []))
                facts["writers"].update(c.get("adapter") or "node" for c in tick.get("changes", []))
                facts["reasons"] += len(tick.get("reasons", []))
        elif channel.topic == "/foxglove/scene":
            facts["scene_ids"].update(e["id"] for e in decoded["entities"])
        elif channel.topic == "/gamecontroller":
            facts["gc_states"].add(decoded["state"])
        elif channel.topic == "/commands":
            facts["command_robots"].update(decoded["commands"])
print(json.dumps({"counts": counts, "facts": {k: sorted(v) if isinstance(v, set) else v for k, v in facts.items()}}))
"""


def _top_levels(name: str) -> set[str]:
    """The top-level modules and packages a distribution installs."""
    try:
        files = importlib.metadata.distribution(name).files or []
    except importlib.metadata.PackageNotFoundError:
        return set()
    out = set()
    for f in files:
        first = f.parts[0]
        if first.endswith((".dist-info", ".egg-info", ".pth")) or first == ".." or first == "__pycache__":
            continue
        out.add(first)
    return out


def _limited_path(folder: Path) -> Path:
    """A folder of links to the decoders' distributions only (no soccerbt)."""
    folder.mkdir()
    for name in _DISTRIBUTIONS:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        site = Path(dist.locate_file(""))
        for top in _top_levels(name):
            if not (folder / top).exists() and (site / top).exists():
                (folder / top).symlink_to(site / top)
    assert not (folder / "soccerbt").exists()
    return folder


def test_every_channel_decodes_with_the_standard_decoders_without_soccerbt(tmp_path: Path) -> None:
    pytest.importorskip("mcap_protobuf", reason="mcap-protobuf-support is in the dev extra")
    pytest.importorskip("jsonschema", reason="jsonschema is in the dev extra")
    log_path = tmp_path / "match.mcap"
    assert main(["run", "--headless", "--quiet", "--seconds", "30", "--seed", "3", "--record", str(log_path)]) == 0
    limited = _limited_path(tmp_path / "site")
    child = subprocess.run([sys.executable, "-I", "-S", "-c", _CHILD, str(limited), str(log_path)],
                           capture_output=True, text=True, cwd=tmp_path, env={"PATH": os.environ.get("PATH", "")})
    assert child.returncode == 0, child.stderr[-3000:]
    seen = json.loads(child.stdout)
    log = McapLog.open(log_path)
    expected = Counter(topic for topic, _step, _data in log.messages(0, None))
    assert seen["counts"] == dict(expected)  # every message of every channel, decoded
    facts = seen["facts"]
    encodings = facts["encodings"]
    assert encodings["/match/step"] == ["protobuf", "protobuf", "soccerbt.Step"]
    assert encodings["/match/inputs"] == ["protobuf", "protobuf", "soccerbt.StepInputs"]
    assert all(enc == ["json", "jsonschema", enc[2]] for topic, enc in encodings.items()
               if topic not in ("/match/step", "/match/inputs"))
    assert facts["robots"] == sorted(log.robots)
    assert {"RUNNING", "SUCCESS", "IDLE"} <= set(facts["statuses"])  # by name: plottable per node
    assert facts["writers"]["WORLD_MODEL"] > 0 and facts["writers"]["node"] > 0 and facts["reasons"] > 0
    assert {"field", "goals", "ball", "blue1", "red1"} <= set(facts["scene_ids"])
    assert {"INITIAL", "READY"} <= set(facts["gc_states"]) and facts["command_robots"] == sorted(log.robots)
