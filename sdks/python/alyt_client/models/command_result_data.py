from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="CommandResultData")



@_attrs_define
class CommandResultData:
    """ `command.result`: the device acknowledged a command.

        Attributes:
            at (datetime.datetime):
            command (str):
            command_id (str): A decimal string.
            device_id (UUID):
            status (str): The device's status word (1-32 characters), e.g. `ok` or `rejected`.
     """

    at: datetime.datetime
    command: str
    command_id: str
    device_id: UUID
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        command = self.command

        command_id = self.command_id

        device_id = str(self.device_id)

        status = self.status


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "command": command,
            "commandId": command_id,
            "deviceId": device_id,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        command = d.pop("command")

        command_id = d.pop("commandId")

        device_id = UUID(d.pop("deviceId"))




        status = d.pop("status")

        command_result_data = cls(
            at=at,
            command=command,
            command_id=command_id,
            device_id=device_id,
            status=status,
        )


        command_result_data.additional_properties = d
        return command_result_data

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
