#!/usr/bin/env python3
"""Record conformance cases with a real BehaviorTree.CPP 4.10.0 build (the `record` program
built from record.cpp beside this file; see ../README.md).

    python record.py CASES_DIR [-k SUBSTRING] [--bin PATH]
    python record.py /tmp/cmp --compare /work/shared/conformance/btcpp

CASES_DIR holds cases/NAME.xml and index.json (a list of {"case", "description", "ticks", ...});
the recorder writes traces/NAME.json and fills the derived fields of each index entry (roots,
roots_tickOnce, error, error_at, error_tickOnce_at, error_tickOnce, recorded_with), as
../record.py does for 4.8.2. `--compare REF` copies REF's cases into CASES_DIR, records them
and prints every difference with REF's traces (roots, events, blackboards, transitions, errors).

Only the standard library; the program is found with --bin, $BTCPP410_RECORD, or
/tmp/w29bt/rec/record, and run with LD_LIBRARY_PATH pointing at its library when
$BTCPP410_LIB is set (default /tmp/w29bt/install/lib).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

RECORDED_WITH = "BehaviorTree.CPP 4.10.0 (tag 4.10.0, commit 879522c, built here)"
DEFAULT_BIN = "/tmp/w29bt/rec/record"
DEFAULT_LIB = "/tmp/w29bt/install/lib"


def run(binary: str, xml: Path, ticks: int | None, once: bool = False) -> dict:
    env = dict(os.environ)
    lib = os.environ.get("BTCPP410_LIB", DEFAULT_LIB)
    env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    args = [binary, str(xml), str(ticks or 0)] + (["--once"] if once else [])
    out = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{xml.name}: exit {out.returncode}: {out.stderr.strip()[-500:]}")
    text = out.stdout
    # BT.CPP prints a warning on stdout for a <root> without BTCPP_format: skip to the JSON
    return json.loads(text[text.index("{"):])


def record_entry(binary: str, root: Path, entry: dict) -> dict:
    name = entry["case"]
    xml = root / "cases" / f"{name}.xml"
    ticks = entry.get("ticks")
    trace = run(binary, xml, ticks)
    ordered = {"case": name, "tick_method": trace["tick_method"]}
    for key in ("blackboard_initial", "error", "error_at", "ticks"):
        if key in trace:
            ordered[key] = trace[key]
    ordered["description"] = entry.get("description", "")
    ordered["recorded_with"] = RECORDED_WITH
    (root / "traces").mkdir(exist_ok=True)
    (root / "traces" / f"{name}.json").write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n")

    n_ticks = len(trace["ticks"])
    out = {"case": name, "ticks": ticks if ticks is not None else max(n_ticks, 1),
           "description": entry.get("description", "")}
    for key in ("trust", "trust_reason", "source"):
        if key in entry:
            out[key] = entry[key]
    if "error" in trace:
        out["error"] = trace["error"]
        out["error_at"] = trace["error_at"]
    out["roots"] = [s["root"] for s in trace["ticks"]]
    once = run(binary, xml, out["ticks"] if trace.get("error_at") != "load" else 1, once=True)
    out["roots_tickOnce"] = once["roots"]
    if "error" in once:
        out["error_tickOnce_at"] = once["error_at"]
        out["error_tickOnce"] = once["error"]
    out["recorded_with"] = RECORDED_WITH
    return out


def compare(mine: dict, ref: dict) -> list[str]:
    diffs = []
    for key in ("error", "error_at"):
        if mine.get(key) != ref.get(key):
            diffs.append(f"{key}: {mine.get(key)!r} vs {ref.get(key)!r}")
    if len(mine["ticks"]) != len(ref["ticks"]):
        diffs.append(f"{len(mine['ticks'])} ticks vs {len(ref['ticks'])}")
    for a, b in zip(mine["ticks"], ref["ticks"], strict=False):
        for key in ("root", "events", "transitions", "error"):
            if a.get(key) != b.get(key):
                diffs.append(f"tick {a['tick']} {key}: {a.get(key)} vs {b.get(key)}")
        for scope, ma, mb in [("", a.get("blackboard", {}), b.get("blackboard", {}))] + [
                (s, a.get("subtree_blackboards", {}).get(s, {}), v)
                for s, v in b.get("subtree_blackboards", {}).items()]:
            for k in sorted(set(ma) | set(mb)):
                ea, eb = ma.get(k, {}), mb.get(k, {})
                if (ea.get("value"), ea.get("type")) != (eb.get("value"), eb.get("type")):
                    diffs.append(f"tick {a['tick']} bb[{scope}] {k}: {ea} vs {eb}")
    return diffs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases_dir")
    parser.add_argument("-k", default="")
    parser.add_argument("--bin", default=os.environ.get("BTCPP410_RECORD", DEFAULT_BIN))
    parser.add_argument("--compare", metavar="REF")
    args = parser.parse_args()
    root = Path(args.cases_dir)
    if args.compare:
        ref = Path(args.compare)
        shutil.copytree(ref / "cases", root / "cases", dirs_exist_ok=True)
        shutil.copy(ref / "index.json", root / "index.json")
    index = json.loads((root / "index.json").read_text())
    failed = 0
    for i, entry in enumerate(index):
        if args.k not in entry["case"]:
            continue
        try:
            index[i] = record_entry(args.bin, root, entry)
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            failed += 1
            print(f"NOT RECORDED {entry['case']}: {exc}")
            continue
        if args.compare:
            mine = json.loads((root / "traces" / f"{entry['case']}.json").read_text())
            theirs = json.loads((ref / "traces" / f"{entry['case']}.json").read_text())
            diffs = compare(mine, theirs)
            print(f"{'DIFF' if diffs else 'same'} {entry['case']}")
            for d in diffs:
                print("    " + d)
        else:
            print(f"recorded {entry['case']}: roots {index[i]['roots']}"
                  + (f", error at {index[i]['error_at']}: {index[i]['error']}" if "error" in index[i] else ""))
    (root / "index.json").write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
