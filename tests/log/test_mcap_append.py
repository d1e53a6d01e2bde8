"""MessageAppender writes the bytes mcap's Writer.add_message writes."""
from __future__ import annotations

import io
import random

from mcap.reader import make_reader
from mcap.writer import CompressionType, Writer

from soccerbt.log.mcap_append import MessageAppender


def _write(messages: list[tuple[int, int, bytes]], fast: bool, chunk_size: int) -> bytes:
    out = io.BytesIO()
    writer = Writer(out, chunk_size=chunk_size, compression=CompressionType.ZSTD)
    writer.start(profile="", library="test")
    schema = writer.register_schema(name="s", encoding="jsonschema", data=b"{}")
    channels = [writer.register_channel(topic=f"/t{k}", message_encoding="json", schema_id=schema) for k in range(3)]
    appender = MessageAppender.of(writer) if fast else None
    assert (appender is not None) == fast
    for k, ns, data in messages:
        if appender is not None:
            appender.add(channels[k], ns, data)
        else:
            writer.add_message(channel_id=channels[k], log_time=ns, data=data, publish_time=ns)
    writer.add_attachment(create_time=1, log_time=1, name="a", media_type="text/plain", data=b"x")
    writer.finish()
    return out.getvalue()


def test_the_same_bytes_as_add_message_over_many_chunks() -> None:
    rng = random.Random(7)
    messages = []
    ns = 10_000_000
    for _ in range(3000):
        ns += rng.choice((0, 10_000_000, 10_000_000, 20_000_000))
        for _ in range(rng.randint(1, 3)):
            # mostly rising times, some earlier ones (a message written late), some empty payloads
            when = ns - rng.choice((0, 0, 0, 30_000_000)) if ns > 30_000_000 else ns
            size = rng.choice((0, 20, 300, 1500, 9000))
            messages.append(
                (rng.randrange(3), when, bytes(rng.randrange(256) for _ in range(size % 64)) * (size // 64 + 1))
            )
    slow = _write(messages, fast=False, chunk_size=64 * 1024)
    fast = _write(messages, fast=True, chunk_size=64 * 1024)
    assert fast == slow
    reader = make_reader(io.BytesIO(fast))
    summary = reader.get_summary()
    assert summary.statistics.message_count == len(messages)
    assert summary.statistics.chunk_count > 10
    read = [(m.channel_id, m.log_time, m.data) for _s, _c, m in reader.iter_messages(log_time_order=False)]
    assert [(ns, data) for _k, ns, data in messages] == [(ns, data) for _c, ns, data in read]


def test_a_first_message_at_time_zero_and_one_chunk() -> None:
    messages = [(0, 0, b"a"), (1, 0, b"bb"), (2, 5, b"")]
    assert _write(messages, fast=True, chunk_size=1 << 20) == _write(messages, fast=False, chunk_size=1 << 20)


def test_a_writer_it_was_not_made_for_gets_none() -> None:
    unchunked = Writer(io.BytesIO(), use_chunking=False)
    assert MessageAppender.of(unchunked) is None
    assert MessageAppender.of(object()) is None
