"""The log's protobuf schema: docs/log-format.md holds it exactly as soccerbt embeds it in a log, and its
Adapter enum numbers the writers as the readers name them."""
from __future__ import annotations

from pathlib import Path

from google.protobuf import descriptor_pb2

from soccerbt.log import proto

DOC = Path(__file__).resolve().parents[2] / "docs" / "log-format.md"


def _proto_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```proto\n") + len("```proto\n")
    return text[start:text.index("```", start)]


def test_the_docs_hold_the_schema_the_log_embeds() -> None:
    assert _proto_block() == proto.proto_text()


def test_the_printed_schema_names_every_message_and_field_the_embedded_one_has() -> None:
    embedded = descriptor_pb2.FileDescriptorSet.FromString(proto.SCHEMA_DATA)
    (file,) = embedded.file
    assert file.name == proto.FILE_NAME
    text = proto.proto_text()
    for message in file.message_type:
        assert f"message {message.name} {{" in text
        for field in message.field:
            assert f" {field.name} = {field.number};" in text, (message.name, field.name)
    for enum in file.enum_type:
        for value in enum.value:
            assert f"  {value.name} = {value.number};" in text


def test_the_adapter_enum_numbers_the_writers_as_the_readers_name_them() -> None:
    from soccerbt.log.format import WRITERS

    names = [(name, number) for name, number, _comment in proto.ENUMS["Adapter"][1]]
    assert names == [(writer.upper(), k) for k, writer in enumerate(WRITERS)]
