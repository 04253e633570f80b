from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Reported")



@_attrs_define
class Reported:
    """ The last status the device reported.

        Attributes:
            device_id (UUID):
            payload (Any): Whatever the device reported (any JSON).
            reported_at (datetime.datetime):
     """

    device_id: UUID
    payload: Any
    reported_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = str(self.device_id)

        payload = self.payload

        reported_at = self.reported_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "payload": payload,
            "reportedAt": reported_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        payload = d.pop("payload")

        reported_at = datetime.datetime.fromisoformat(d.pop("reportedAt"))




        reported = cls(
            device_id=device_id,
            payload=payload,
            reported_at=reported_at,
        )


        reported.additional_properties = d
        return reported

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
