from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="WebhookPingData")



@_attrs_define
class WebhookPingData:
    """ `webhook.ping`: the test event a developer asks for (`POST
    /developers/webhooks/{id}/test`), sent to that one endpoint only.

        Attributes:
            at (datetime.datetime):
            endpoint_id (UUID):
     """

    at: datetime.datetime
    endpoint_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        endpoint_id = str(self.endpoint_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "endpointId": endpoint_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        endpoint_id = UUID(d.pop("endpointId"))




        webhook_ping_data = cls(
            at=at,
            endpoint_id=endpoint_id,
        )


        webhook_ping_data.additional_properties = d
        return webhook_ping_data

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
