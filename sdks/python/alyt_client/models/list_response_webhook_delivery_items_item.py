from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.delivery_status import DeliveryStatus
from typing import cast
import datetime






T = TypeVar("T", bound="ListResponseWebhookDeliveryItemsItem")



@_attrs_define
class ListResponseWebhookDeliveryItemsItem:
    """ One delivery of the log: its state and the exact signed payload.

        Attributes:
            attempts (int): Attempts made in this series (at most 20).
            created_at (datetime.datetime):
            event_id (str):
            event_type (str): `X-SVC-Event`.
            id (str): `X-SVC-Delivery`: the same for every attempt of one series (a
                re-enable starts a new series for a held delivery).
            last_attempt_at (datetime.datetime | None):
            last_error (None | str): Why the last attempt failed (never the URL).
            next_attempt_at (datetime.datetime | None):
            payload (str): The body sent: the event envelope as JSON text.
            response_code (int | None): The last answer's HTTP status; null when none came.
            signature (None | str): `X-SVC-Signature` of the last attempt.
            status (DeliveryStatus):
     """

    attempts: int
    created_at: datetime.datetime
    event_id: str
    event_type: str
    id: str
    last_attempt_at: datetime.datetime | None
    last_error: None | str
    next_attempt_at: datetime.datetime | None
    payload: str
    response_code: int | None
    signature: None | str
    status: DeliveryStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event_id = self.event_id

        event_type = self.event_type

        id = self.id

        last_attempt_at: None | str
        if isinstance(self.last_attempt_at, datetime.datetime):
            last_attempt_at = self.last_attempt_at.isoformat()
        else:
            last_attempt_at = self.last_attempt_at

        last_error: None | str
        last_error = self.last_error

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        payload = self.payload

        response_code: int | None
        response_code = self.response_code

        signature: None | str
        signature = self.signature

        status = self.status.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "createdAt": created_at,
            "eventId": event_id,
            "eventType": event_type,
            "id": id,
            "lastAttemptAt": last_attempt_at,
            "lastError": last_error,
            "nextAttemptAt": next_attempt_at,
            "payload": payload,
            "responseCode": response_code,
            "signature": signature,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        event_id = d.pop("eventId")

        event_type = d.pop("eventType")

        id = d.pop("id")

        def _parse_last_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("lastAttemptAt"))


        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("lastError"))


        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt"))


        payload = d.pop("payload")

        def _parse_response_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_code = _parse_response_code(d.pop("responseCode"))


        def _parse_signature(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signature = _parse_signature(d.pop("signature"))


        status = DeliveryStatus(d.pop("status"))




        list_response_webhook_delivery_items_item = cls(
            attempts=attempts,
            created_at=created_at,
            event_id=event_id,
            event_type=event_type,
            id=id,
            last_attempt_at=last_attempt_at,
            last_error=last_error,
            next_attempt_at=next_attempt_at,
            payload=payload,
            response_code=response_code,
            signature=signature,
            status=status,
        )


        list_response_webhook_delivery_items_item.additional_properties = d
        return list_response_webhook_delivery_items_item

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
