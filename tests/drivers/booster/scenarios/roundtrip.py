"""Every message type through CycloneTransport between two processes.

stdin: {"items": [{"topic", "type", "qos", "hex"}, ...]}. The main process publishes each item
once (after every publisher and subscription matched); the child ("sub") takes them and reports
what arrived as hex. Prints {"pub_matched": {...}, "sub": {...}}.
"""
from __future__ import annotations

import json
import sys
import time

from _common import Child, emit, wait_for

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport

TYPES = {cls.__name__: cls for cls in m.MESSAGE_TYPES}


def main() -> None:
    spec = json.loads(sys.stdin.read())
    items = spec["items"]
    transport = open_transport("cyclone", domain=0, interface="lo")
    pubs = [transport.publisher(i["topic"], TYPES[i["type"]], i["qos"]) for i in items]
    child = Child("roundtrip.py", "sub")
    child.send(json.dumps(spec) + "\n")
    ready = child.next_json(20)
    if "error" in ready:
        emit(ready)
        return
    matched_after = wait_for(lambda: all(p.matched() >= 1 for p in pubs), 10)
    matched = {p.topic: p.matched() for p in pubs}
    for pub, item in zip(pubs, items, strict=False):
        pub.publish(TYPES[item["type"]].decode(bytes.fromhex(item["hex"])))
    result = child.next_json(20)
    child.finish()
    emit({"pub_matched": matched, "pub_matched_after_s": matched_after,
          "published": sum(p.published for p in pubs), "sub": result})
    transport.close()


def sub() -> None:
    spec = json.loads(sys.stdin.readline())
    items = spec["items"]
    transport = open_transport("cyclone", domain=0, interface="lo")
    subs = [transport.subscription(i["topic"], TYPES[i["type"]], i["qos"], depth=8) for i in items]
    matched_after = wait_for(lambda: all(s.matched() >= 1 for s in subs), 10)
    emit({"ready": True, "matched_after_s": matched_after})
    got: dict[str, list[str]] = {s.topic: [] for s in subs}

    def poll() -> bool:
        for s in subs:
            got[s.topic].extend(msg.encode().hex() for msg in s.take())
        return all(got.values())

    matched = {s.topic: s.matched() for s in subs}
    wait_for(poll, 10)
    time.sleep(0.05)
    poll()  # nothing more should come
    emit({"got": got, "matched": matched, "received": sum(s.received for s in subs),
          "dropped": sum(s.dropped for s in subs), "matched_after_s": matched_after})
    transport.close()


if __name__ == "__main__":
    sub() if sys.argv[1:] == ["sub"] else main()
