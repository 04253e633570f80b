from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.command_state import CommandState
from ..models.undeliverable_reason import UndeliverableReason
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.command_row_payload_type_0 import CommandRowPayloadType0





T = TypeVar("T", bound="CommandRow")



@_attrs_define
class CommandRow:
    """ One row of a device's command history.

        Attributes:
            answered_at (datetime.datetime | None):
            attempts (int): Publishes tried so far (successful or not).
            command (str): The verb sent on the commands channel (`set`, `press`, or a device
                verb of the flat form).
            command_id (str): A decimal string.
            created_at (datetime.datetime):
            device_id (UUID):
            payload (CommandRowPayloadType0 | None):
            result_status (None | str): The device's response status, once answered.
            sent_at (datetime.datetime | None):
            state (CommandState):
            undeliverable_reason (None | UndeliverableReason):
     """

    answered_at: datetime.datetime | None
    attempts: int
    command: str
    command_id: str
    created_at: datetime.datetime
    device_id: UUID
    payload: CommandRowPayloadType0 | None
    result_status: None | str
    sent_at: datetime.datetime | None
    state: CommandState
    undeliverable_reason: None | UndeliverableReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.command_row_payload_type_0 import CommandRowPayloadType0 # noqa: PLC0415
        answered_at: None | str
        if isinstance(self.answered_at, datetime.datetime):
            answered_at = self.answered_at.isoformat()
        else:
            answered_at = self.answered_at

        attempts = self.attempts

        command = self.command

        command_id = self.command_id

        created_at = self.created_at.isoformat()

        device_id = str(self.device_id)

        payload: dict[str, Any] | None
        if isinstance(self.payload, CommandRowPayloadType0):
            payload = self.payload.to_dict()
        else:
            payload = self.payload

        result_status: None | str
        result_status = self.result_status

        sent_at: None | str
        if isinstance(self.sent_at, datetime.datetime):
            sent_at = self.sent_at.isoformat()
        else:
            sent_at = self.sent_at

        state = self.state.value

        undeliverable_reason: None | str
        if isinstance(self.undeliverable_reason, UndeliverableReason):
            undeliverable_reason = self.undeliverable_reason.value
        else:
            undeliverable_reason = self.undeliverable_reason


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "answeredAt": answered_at,
            "attempts": attempts,
            "command": command,
            "commandId": command_id,
            "createdAt": created_at,
            "deviceId": device_id,
            "payload": payload,
            "resultStatus": result_status,
            "sentAt": sent_at,
            "state": state,
            "undeliverableReason": undeliverable_reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.command_row_payload_type_0 import CommandRowPayloadType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_answered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                answered_at_type_0 = datetime.datetime.fromisoformat(data)



                return answered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        answered_at = _parse_answered_at(d.pop("answeredAt"))


        attempts = d.pop("attempts")

        command = d.pop("command")

        command_id = d.pop("commandId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        device_id = UUID(d.pop("deviceId"))




        def _parse_payload(data: object) -> CommandRowPayloadType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_0 = CommandRowPayloadType0.from_dict(data)



                return payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CommandRowPayloadType0 | None, data)

        payload = _parse_payload(d.pop("payload"))


        def _parse_result_status(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        result_status = _parse_result_status(d.pop("resultStatus"))


        def _parse_sent_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_at_type_0 = datetime.datetime.fromisoformat(data)



                return sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sent_at = _parse_sent_at(d.pop("sentAt"))


        state = CommandState(d.pop("state"))




        def _parse_undeliverable_reason(data: object) -> None | UndeliverableReason:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                undeliverable_reason_type_1 = UndeliverableReason(data)



                return undeliverable_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UndeliverableReason, data)

        undeliverable_reason = _parse_undeliverable_reason(d.pop("undeliverableReason"))


        command_row = cls(
            answered_at=answered_at,
            attempts=attempts,
            command=command,
            command_id=command_id,
            created_at=created_at,
            device_id=device_id,
            payload=payload,
            result_status=result_status,
            sent_at=sent_at,
            state=state,
            undeliverable_reason=undeliverable_reason,
        )


        command_row.additional_properties = d
        return command_row

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
