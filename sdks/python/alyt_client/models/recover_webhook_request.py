from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="RecoverWebhookRequest")



@_attrs_define
class RecoverWebhookRequest:
    """ The body of `POST /v1/developers/webhooks/{webhookId}/recover`: either
    `since`, or `fromEventId` with an optional `toEventId`.

        Attributes:
            from_event_id (str | Unset): The first event of the range (an event's `id`), included.
            since (datetime.datetime | Unset): Every event from this time on (not in the future).
            to_event_id (str | Unset): The last event of the range, included; default: up to now.
     """

    from_event_id: str | Unset = UNSET
    since: datetime.datetime | Unset = UNSET
    to_event_id: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from_event_id = self.from_event_id

        since: str | Unset = UNSET
        if not isinstance(self.since, Unset):
            since = self.since.isoformat()

        to_event_id = self.to_event_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if from_event_id is not UNSET:
            field_dict["fromEventId"] = from_event_id
        if since is not UNSET:
            field_dict["since"] = since
        if to_event_id is not UNSET:
            field_dict["toEventId"] = to_event_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_event_id = d.pop("fromEventId", UNSET)

        _since = d.pop("since", UNSET)
        since: datetime.datetime | Unset
        if isinstance(_since,  Unset):
            since = UNSET
        else:
            since = datetime.datetime.fromisoformat(_since)




        to_event_id = d.pop("toEventId", UNSET)

        recover_webhook_request = cls(
            from_event_id=from_event_id,
            since=since,
            to_event_id=to_event_id,
        )

        return recover_webhook_request

