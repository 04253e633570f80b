from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.set_command_command import SetCommandCommand
from typing import cast

if TYPE_CHECKING:
  from ..models.set_command_payload import SetCommandPayload





T = TypeVar("T", bound="SetCommand")



@_attrs_define
class SetCommand:
    """ Set one control of the thing (the thing envelope).

        Attributes:
            command (SetCommandCommand):
            payload (SetCommandPayload):
     """

    command: SetCommandCommand
    payload: SetCommandPayload





    def to_dict(self) -> dict[str, Any]:
        from ..models.set_command_payload import SetCommandPayload # noqa: PLC0415
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
        from ..models.set_command_payload import SetCommandPayload # noqa: PLC0415
        d = dict(src_dict)
        command = SetCommandCommand(d.pop("command"))




        payload = SetCommandPayload.from_dict(d.pop("payload"))




        set_command = cls(
            command=command,
            payload=payload,
        )

        return set_command

