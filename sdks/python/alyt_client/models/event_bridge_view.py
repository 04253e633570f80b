from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="EventBridgeView")



@_attrs_define
class EventBridgeView:
    """ A developer's EventBridge bus.

        Attributes:
            account_id (str): The AWS account the bus is in (12 digits).
            event_bus_arn (str): The bus entries are put on.
            event_source_name (None | str): The partner-style event source name it was named by (entries carry
                it as `source`); null when named by its ARN (`source` is `alyt`).
            region (str):
     """

    account_id: str
    event_bus_arn: str
    event_source_name: None | str
    region: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        event_bus_arn = self.event_bus_arn

        event_source_name: None | str
        event_source_name = self.event_source_name

        region = self.region


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "accountId": account_id,
            "eventBusArn": event_bus_arn,
            "eventSourceName": event_source_name,
            "region": region,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        event_bus_arn = d.pop("eventBusArn")

        def _parse_event_source_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        event_source_name = _parse_event_source_name(d.pop("eventSourceName"))


        region = d.pop("region")

        event_bridge_view = cls(
            account_id=account_id,
            event_bus_arn=event_bus_arn,
            event_source_name=event_source_name,
            region=region,
        )


        event_bridge_view.additional_properties = d
        return event_bridge_view

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
