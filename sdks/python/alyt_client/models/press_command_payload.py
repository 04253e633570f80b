from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PressCommandPayload")



@_attrs_define
class PressCommandPayload:
    """ 
        Attributes:
            capability (str):
            key (str):
     """

    capability: str
    key: str





    def to_dict(self) -> dict[str, Any]:
        capability = self.capability

        key = self.key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capability": capability,
            "key": key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capability = d.pop("capability")

        key = d.pop("key")

        press_command_payload = cls(
            capability=capability,
            key=key,
        )

        return press_command_payload

