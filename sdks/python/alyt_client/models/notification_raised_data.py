from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="NotificationRaisedData")



@_attrs_define
class NotificationRaisedData:
    """ `notification.raised`: `{ id, kind, title, body, deviceId|null, at }`.

        Attributes:
            at (datetime.datetime):
            body (str):
            device_id (None | UUID):
            id (UUID):
            kind (str): What raised it: `device.alert`, `membership.granted`,
                `membership.ended` or `webhook.disabled`.
            title (str):
     """

    at: datetime.datetime
    body: str
    device_id: None | UUID
    id: UUID
    kind: str
    title: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        body = self.body

        device_id: None | str
        if isinstance(self.device_id, UUID):
            device_id = str(self.device_id)
        else:
            device_id = self.device_id

        id = str(self.id)

        kind = self.kind

        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "body": body,
            "deviceId": device_id,
            "id": id,
            "kind": kind,
            "title": title,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        body = d.pop("body")

        def _parse_device_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                device_id_type_1 = UUID(data)



                return device_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        device_id = _parse_device_id(d.pop("deviceId"))


        id = UUID(d.pop("id"))




        kind = d.pop("kind")

        title = d.pop("title")

        notification_raised_data = cls(
            at=at,
            body=body,
            device_id=device_id,
            id=id,
            kind=kind,
            title=title,
        )


        notification_raised_data.additional_properties = d
        return notification_raised_data

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
