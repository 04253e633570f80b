from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.recovery_status import RecoveryStatus
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="WebhookRecovery")



@_attrs_define
class WebhookRecovery:
    """ A recovery of an endpoint and how far it got.

        Attributes:
            endpoint_id (UUID):
            finished_at (datetime.datetime | None):
            from_event_id (str): The range (both included): no earlier than the endpoint's creation
                and the oldest event the log keeps (7 days), no later than the start.
            matched (int): Events of the range the endpoint's filter matched so far.
            position (None | str): The last event looked at (null before the first batch, and between
                the logs of the tenants a LIVE key's endpoint hears).
            queued (int): Of those, sent again: never delivered, failed, or waiting for a retry.
            skipped (int): Of those, left alone: delivered, or about to be attempted.
            started_at (datetime.datetime):
            status (RecoveryStatus):
            to_event_id (str):
            updated_at (datetime.datetime):
     """

    endpoint_id: UUID
    finished_at: datetime.datetime | None
    from_event_id: str
    matched: int
    position: None | str
    queued: int
    skipped: int
    started_at: datetime.datetime
    status: RecoveryStatus
    to_event_id: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        endpoint_id = str(self.endpoint_id)

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        from_event_id = self.from_event_id

        matched = self.matched

        position: None | str
        position = self.position

        queued = self.queued

        skipped = self.skipped

        started_at = self.started_at.isoformat()

        status = self.status.value

        to_event_id = self.to_event_id

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "endpointId": endpoint_id,
            "finishedAt": finished_at,
            "fromEventId": from_event_id,
            "matched": matched,
            "position": position,
            "queued": queued,
            "skipped": skipped,
            "startedAt": started_at,
            "status": status,
            "toEventId": to_event_id,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        endpoint_id = UUID(d.pop("endpointId"))




        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finishedAt"))


        from_event_id = d.pop("fromEventId")

        matched = d.pop("matched")

        def _parse_position(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        position = _parse_position(d.pop("position"))


        queued = d.pop("queued")

        skipped = d.pop("skipped")

        started_at = datetime.datetime.fromisoformat(d.pop("startedAt"))




        status = RecoveryStatus(d.pop("status"))




        to_event_id = d.pop("toEventId")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        webhook_recovery = cls(
            endpoint_id=endpoint_id,
            finished_at=finished_at,
            from_event_id=from_event_id,
            matched=matched,
            position=position,
            queued=queued,
            skipped=skipped,
            started_at=started_at,
            status=status,
            to_event_id=to_event_id,
            updated_at=updated_at,
        )


        webhook_recovery.additional_properties = d
        return webhook_recovery

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
