from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.offline_reason import OfflineReason
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="DeviceOfflineData")



@_attrs_define
class DeviceOfflineData:
    """ `device.offline`: the last will fired or the heartbeat window passed.

        Attributes:
            at (datetime.datetime):
            device_id (UUID):
            name (str):
            reason (OfflineReason):
     """

    at: datetime.datetime
    device_id: UUID
    name: str
    reason: OfflineReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        device_id = str(self.device_id)

        name = self.name

        reason = self.reason.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "deviceId": device_id,
            "name": name,
            "reason": reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        device_id = UUID(d.pop("deviceId"))




        name = d.pop("name")

        reason = OfflineReason(d.pop("reason"))




        device_offline_data = cls(
            at=at,
            device_id=device_id,
            name=name,
            reason=reason,
        )


        device_offline_data.additional_properties = d
        return device_offline_data

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
