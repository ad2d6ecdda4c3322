"""A read-only view of one ONNX node: attributes decoded, its schema version resolved."""

from __future__ import annotations

from typing import Any

import onnx
from onnx import helper

from .loader import DEFAULT_DOMAINS


class Node:
    """``index`` is the node's position in ``graph.node`` (its source id, §9); ``inputs``
    keep ``""`` for omitted optional inputs."""

    def __init__(self, proto: onnx.NodeProto, index: int, opset: int) -> None:
        self.proto = proto
        self.index = index
        self.op_type = proto.op_type
        self.domain = proto.domain
        self.name = proto.name
        self.inputs = list(proto.input)
        self.outputs = list(proto.output)
        self.opset = opset
        self.attrs: dict[str, Any] = {
            a.name: helper.get_attribute_value(a) for a in proto.attribute
        }
        self.since_version = _since_version(proto.op_type, opset, proto.domain)

    @property
    def source_name(self) -> str:
        """The node name, or its first output when unnamed (the source table's name)."""
        return self.name or (self.outputs[0] if self.outputs else "")

    @property
    def label(self) -> str:
        """``<op_type> '<name>' (opset <v>)`` as the unsupported-operator entries print it."""
        name = f"'{self.name}'" if self.name else f"'' (output '{self.outputs[0]}')"
        where = f"opset {self.opset}"
        if self.domain not in DEFAULT_DOMAINS:
            where = f"domain {self.domain}, {where}"
        return f"{self.op_type} {name} ({where})"

    def attr(self, name: str, default: Any = None) -> Any:
        """An attribute (strings decoded to str), or ``default``."""
        value = self.attrs.get(name, default)
        return value.decode() if isinstance(value, bytes) else value

    def input(self, k: int) -> str:
        """The name of input ``k`` ("" when omitted or absent)."""
        return self.inputs[k] if k < len(self.inputs) else ""


def _since_version(op_type: str, opset: int, domain: str) -> int | None:
    """The schema version that applies at ``opset`` (None outside the default domain or
    without a schema)."""
    if domain not in DEFAULT_DOMAINS:
        return None
    try:
        return onnx.defs.get_schema(op_type, opset, "").since_version
    except onnx.defs.SchemaError:
        return None
