from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.destination_kind import DestinationKind
from ..models.event_kind import EventKind
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.event_bridge_request import EventBridgeRequest





T = TypeVar("T", bound="CreateWebhookRequest")



@_attrs_define
class CreateWebhookRequest:
    """ 
        Attributes:
            events (list[EventKind]): The event kinds to receive (at least one).
            description (None | str | Unset):
            event_bridge (EventBridgeRequest | Unset): Where an EventBridge destination puts events: the developer's account
                and region, and exactly one of the bus's ARN and a partner-style event
                source name (`aws.partner/…`, whose bus has the same name).
            key_id (None | Unset | UUID):
            kind (DestinationKind | Unset): What an endpoint delivers to.
            url (str | Unset): A webhook's: where deliveries are POSTed (https on the hosted
                platform). Required for a webhook, absent for EventBridge.
     """

    events: list[EventKind]
    description: None | str | Unset = UNSET
    event_bridge: EventBridgeRequest | Unset = UNSET
    key_id: None | Unset | UUID = UNSET
    kind: DestinationKind | Unset = UNSET
    url: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_bridge_request import EventBridgeRequest # noqa: PLC0415
        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)



        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        event_bridge: dict[str, Any] | Unset = UNSET
        if not isinstance(self.event_bridge, Unset):
            event_bridge = self.event_bridge.to_dict()

        key_id: None | str | Unset
        if isinstance(self.key_id, Unset):
            key_id = UNSET
        elif isinstance(self.key_id, UUID):
            key_id = str(self.key_id)
        else:
            key_id = self.key_id

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value


        url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if event_bridge is not UNSET:
            field_dict["eventBridge"] = event_bridge
        if key_id is not UNSET:
            field_dict["keyId"] = key_id
        if kind is not UNSET:
            field_dict["kind"] = kind
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_bridge_request import EventBridgeRequest # noqa: PLC0415
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in (_events):
            events_item = EventKind(events_item_data)



            events.append(events_item)


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        _event_bridge = d.pop("eventBridge", UNSET)
        event_bridge: EventBridgeRequest | Unset
        if isinstance(_event_bridge,  Unset):
            event_bridge = UNSET
        else:
            event_bridge = EventBridgeRequest.from_dict(_event_bridge)




        def _parse_key_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                key_id_type_1 = UUID(data)



                return key_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        key_id = _parse_key_id(d.pop("keyId", UNSET))


        _kind = d.pop("kind", UNSET)
        kind: DestinationKind | Unset
        if isinstance(_kind,  Unset):
            kind = UNSET
        else:
            kind = DestinationKind(_kind)




        url = d.pop("url", UNSET)

        create_webhook_request = cls(
            events=events,
            description=description,
            event_bridge=event_bridge,
            key_id=key_id,
            kind=kind,
            url=url,
        )

        return create_webhook_request

