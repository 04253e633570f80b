from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_kind import EventKind
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="UpdateWebhookRequest")



@_attrs_define
class UpdateWebhookRequest:
    """ The body of `PATCH /v1/developers/webhooks/{webhookId}`: every field
    optional; a field left out keeps its value.

        Attributes:
            description (None | str | Unset): Null or empty removes it.
            events (list[EventKind] | Unset): The event kinds to receive from now on (at least one).
            url (str | Unset): Where deliveries are POSTed from now on (checked like a new
                endpoint's: https on the hosted platform).
     """

    description: None | str | Unset = UNSET
    events: list[EventKind] | Unset = UNSET
    url: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)



        url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if description is not UNSET:
            field_dict["description"] = description
        if events is not UNSET:
            field_dict["events"] = events
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        _events = d.pop("events", UNSET)
        events: list[EventKind] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = EventKind(events_item_data)



                events.append(events_item)


        url = d.pop("url", UNSET)

        update_webhook_request = cls(
            description=description,
            events=events,
            url=url,
        )

        return update_webhook_request

