from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.device_command_payload_type_0 import DeviceCommandPayloadType0





T = TypeVar("T", bound="DeviceCommand")



@_attrs_define
class DeviceCommand:
    """ The flat form: a device verb and its payload, passed to the device as is.

        Attributes:
            command (str):
            payload (DeviceCommandPayloadType0 | None | Unset):
     """

    command: str
    payload: DeviceCommandPayloadType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_command_payload_type_0 import DeviceCommandPayloadType0 # noqa: PLC0415
        command = self.command

        payload: dict[str, Any] | None | Unset
        if isinstance(self.payload, Unset):
            payload = UNSET
        elif isinstance(self.payload, DeviceCommandPayloadType0):
            payload = self.payload.to_dict()
        else:
            payload = self.payload


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "command": command,
        })
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_command_payload_type_0 import DeviceCommandPayloadType0 # noqa: PLC0415
        d = dict(src_dict)
        command = d.pop("command")

        def _parse_payload(data: object) -> DeviceCommandPayloadType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_0 = DeviceCommandPayloadType0.from_dict(data)



                return payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceCommandPayloadType0 | None | Unset, data)

        payload = _parse_payload(d.pop("payload", UNSET))


        device_command = cls(
            command=command,
            payload=payload,
        )

        return device_command

