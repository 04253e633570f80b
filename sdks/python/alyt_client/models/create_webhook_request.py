from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_kind import EventKind
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="CreateWebhookRequest")



@_attrs_define
class CreateWebhookRequest:
    """ 
        Attributes:
            events (list[EventKind]): The event kinds to receive (at least one).
            url (str): Where deliveries are POSTed: https on the hosted platform.
            description (None | str | Unset):
            key_id (None | Unset | UUID):
     """

    events: list[EventKind]
    url: str
    description: None | str | Unset = UNSET
    key_id: None | Unset | UUID = UNSET





    def to_dict(self) -> dict[str, Any]:
        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)



        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        key_id: None | str | Unset
        if isinstance(self.key_id, Unset):
            key_id = UNSET
        elif isinstance(self.key_id, UUID):
            key_id = str(self.key_id)
        else:
            key_id = self.key_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if key_id is not UNSET:
            field_dict["keyId"] = key_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in (_events):
            events_item = EventKind(events_item_data)



            events.append(events_item)


        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


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


        create_webhook_request = cls(
            events=events,
            url=url,
            description=description,
            key_id=key_id,
        )

        return create_webhook_request

