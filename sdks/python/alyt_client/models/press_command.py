from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.press_command_command import PressCommandCommand
from typing import cast

if TYPE_CHECKING:
  from ..models.press_command_payload import PressCommandPayload





T = TypeVar("T", bound="PressCommand")



@_attrs_define
class PressCommand:
    """ Press a momentary control of the thing.

        Attributes:
            command (PressCommandCommand):
            payload (PressCommandPayload):
     """

    command: PressCommandCommand
    payload: PressCommandPayload





    def to_dict(self) -> dict[str, Any]:
        from ..models.press_command_payload import PressCommandPayload # noqa: PLC0415
        command = self.command.value

        payload = self.payload.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "command": command,
            "payload": payload,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.press_command_payload import PressCommandPayload # noqa: PLC0415
        d = dict(src_dict)
        command = PressCommandCommand(d.pop("command"))




        payload = PressCommandPayload.from_dict(d.pop("payload"))




        press_command = cls(
            command=command,
            payload=payload,
        )

        return press_command

