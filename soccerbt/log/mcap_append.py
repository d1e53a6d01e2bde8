"""A cheaper ``mcap.writer.Writer.add_message``: the same bytes, a tenth of the Python calls.

The recorder writes two or three messages every simulated step. ``Writer.add_message`` builds a
``Message`` record object and writes it field by field through ``RecordBuilder`` (a
``struct.pack`` and a buffer write each, a seek back for the length): about thirty Python calls a
message, a few microseconds, the largest single cost of the inputs-only log after the scene.
``MessageAppender`` appends the same record to the writer's open chunk with one ``pack`` and
updates the same statistics, chunk times and message index; when the chunk is full it asks the
writer to finish it, as ``add_message`` does. The file is byte for byte what ``add_message``
writes (tested with both on the same messages).

It reads the writer's private state (``mcap`` 1.x: the chunk builder, the statistics, the chunk
size). When that state is not as expected (another ``mcap`` version, a writer without chunks),
``MessageAppender.of`` returns None and the caller uses ``add_message``.
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from mcap.opcode import Opcode
from mcap.records import MessageIndex

__all__ = ["MessageAppender"]

# opcode, record length, channel id, sequence, log time, publish time (MCAP's Message record)
_MESSAGE_HEAD = struct.Struct("<BQHIQQ")
_MESSAGE_FIXED = _MESSAGE_HEAD.size - 9  # the record's length counts what follows opcode and length


class MessageAppender:
    """Appends messages to an ``mcap`` Writer's open chunk (see the module docstring)."""

    def __init__(self, stats: Any, chunk: Any, chunk_size: int, finalize_chunk: Callable[[], None]) -> None:
        self._stats = stats
        self._chunk = chunk
        self._chunk_size = chunk_size
        self._finalize_chunk = finalize_chunk
        self._counts = stats.channel_message_counts
        self._indices = chunk.message_indices
        self._records = chunk.record_writer

    @classmethod
    def of(cls, writer: Any) -> MessageAppender | None:
        """An appender for `writer`, or None when its state is not the one this was made for."""
        chunk = getattr(writer, "_Writer__chunk_builder", None)
        stats = getattr(writer, "_Writer__statistics", None)
        size = getattr(writer, "_Writer__chunk_size", None)
        finalize = getattr(writer, "_Writer__finalize_chunk", None)
        records = getattr(chunk, "record_writer", None)
        if (chunk is None or stats is None or not isinstance(size, int) or finalize is None
                or not hasattr(records, "_buffer") or not isinstance(getattr(chunk, "message_indices", None), dict)
                or not all(hasattr(stats, name) for name in ("message_count", "message_start_time",
                                                              "message_end_time", "channel_message_counts"))
                or not all(hasattr(chunk, name) for name in ("num_messages", "message_start_time",
                                                              "message_end_time"))):
            return None
        return cls(stats, chunk, size, finalize)

    def add(self, channel_id: int, log_time_ns: int, data: bytes) -> None:
        """``writer.add_message(channel_id, log_time_ns, data, publish_time=log_time_ns)``."""
        stats = self._stats
        if stats.message_count == 0:
            stats.message_start_time = log_time_ns
        elif log_time_ns < stats.message_start_time:
            stats.message_start_time = log_time_ns
        if log_time_ns > stats.message_end_time:
            stats.message_end_time = log_time_ns
        self._counts[channel_id] += 1
        stats.message_count += 1
        chunk = self._chunk
        if chunk.num_messages == 0:
            chunk.message_start_time = log_time_ns
        elif log_time_ns < chunk.message_start_time:
            chunk.message_start_time = log_time_ns
        if log_time_ns > chunk.message_end_time:
            chunk.message_end_time = log_time_ns
        buffer = self._records._buffer  # a new buffer after every chunk: read each time
        index = self._indices.get(channel_id)
        if index is None:
            index = self._indices[channel_id] = MessageIndex(channel_id=channel_id, records=[])
        offset = buffer.tell()
        index.records.append((log_time_ns, offset))
        chunk.num_messages += 1
        buffer.write(_MESSAGE_HEAD.pack(Opcode.MESSAGE, _MESSAGE_FIXED + len(data), channel_id, 0,
                                        log_time_ns, log_time_ns))
        buffer.write(data)
        if buffer.tell() > self._chunk_size:
            self._finalize_chunk()
