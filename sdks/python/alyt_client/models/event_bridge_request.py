from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="EventBridgeRequest")



@_attrs_define
class EventBridgeRequest:
    """ Where an EventBridge destination puts events: the developer's account
    and region, and exactly one of the bus's ARN and a partner-style event
    source name (`aws.partner/…`, whose bus has the same name).

        Attributes:
            account_id (str): 12 digits.
            region (str): Like `eu-west-1`.
            event_bus_arn (str | Unset): `arn:aws:events:{region}:{accountId}:event-bus/{name}`.
            event_source_name (str | Unset): `aws.partner/{partner}/{name}`.
     """

    account_id: str
    region: str
    event_bus_arn: str | Unset = UNSET
    event_source_name: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        region = self.region

        event_bus_arn = self.event_bus_arn

        event_source_name = self.event_source_name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "accountId": account_id,
            "region": region,
        })
        if event_bus_arn is not UNSET:
            field_dict["eventBusArn"] = event_bus_arn
        if event_source_name is not UNSET:
            field_dict["eventSourceName"] = event_source_name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        region = d.pop("region")

        event_bus_arn = d.pop("eventBusArn", UNSET)

        event_source_name = d.pop("eventSourceName", UNSET)

        event_bridge_request = cls(
            account_id=account_id,
            region=region,
            event_bus_arn=event_bus_arn,
            event_source_name=event_source_name,
        )

        return event_bridge_request

