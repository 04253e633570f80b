from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SetCommandPayload")



@_attrs_define
class SetCommandPayload:
    """ 
        Attributes:
            capability (str):
            key (str):
            value (Any): Checked against the control's primitive.
     """

    capability: str
    key: str
    value: Any





    def to_dict(self) -> dict[str, Any]:
        capability = self.capability

        key = self.key

        value = self.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capability": capability,
            "key": key,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capability = d.pop("capability")

        key = d.pop("key")

        value = d.pop("value")

        set_command_payload = cls(
            capability=capability,
            key=key,
            value=value,
        )

        return set_command_payload

