"""TreeNodesModel export (BT.CPP writeTreeNodesModelXML), for Groot2's node palette."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lxml import etree

from soccerbt.nodes.ports import PortDirection

__all__ = ["tree_nodes_model_xml"]

_PORT_TAGS = {PortDirection.INPUT: "input_port", PortDirection.OUTPUT: "output_port",
              PortDirection.INOUT: "inout_port"}


def tree_nodes_model_xml(manifests: Mapping[str, Any], include_builtin: bool = False) -> str:
    """`<root BTCPP_format="4"><TreeNodesModel>...` with one element per node type (sorted)."""
    root = etree.Element("root", BTCPP_format="4")
    model_root = etree.SubElement(root, "TreeNodesModel")
    for node_id in sorted(manifests):
        m = manifests[node_id]
        if m.builtin and not include_builtin:
            continue
        el = etree.SubElement(model_root, m.kind, ID=node_id)
        for port in m.ports.values():
            pe = etree.SubElement(el, _PORT_TAGS[port.direction], name=port.name)
            if port.type_ is not None:
                pe.set("type", port.type_name)
            if port.has_default:
                pe.set("default", port.default_string())
            if port.description:
                pe.text = port.description
        if m.description:
            etree.SubElement(el, "description").text = m.description
    return etree.tostring(root, pretty_print=True, encoding="unicode")
