from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.presence_signal import PresenceSignal
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="PresenceCheck")



@_attrs_define
class PresenceCheck:
    """ One live check of a phone's presence.

        Attributes:
            checked_at (datetime.datetime):
            endpoint_id (UUID):
            present (bool):
            property_id (UUID):
            reason (None | str): Why there was no signal (`missing`, `stale`, `unidentified`, `not
                responding`); null when the phone answered.
            signal (PresenceSignal): Which signal decided a check.
     """

    checked_at: datetime.datetime
    endpoint_id: UUID
    present: bool
    property_id: UUID
    reason: None | str
    signal: PresenceSignal
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        checked_at = self.checked_at.isoformat()

        endpoint_id = str(self.endpoint_id)

        present = self.present

        property_id = str(self.property_id)

        reason: None | str
        reason = self.reason

        signal = self.signal.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "checkedAt": checked_at,
            "endpointId": endpoint_id,
            "present": present,
            "propertyId": property_id,
            "reason": reason,
            "signal": signal,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checked_at = datetime.datetime.fromisoformat(d.pop("checkedAt"))




        endpoint_id = UUID(d.pop("endpointId"))




        present = d.pop("present")

        property_id = UUID(d.pop("propertyId"))




        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        signal = PresenceSignal(d.pop("signal"))




        presence_check = cls(
            checked_at=checked_at,
            endpoint_id=endpoint_id,
            present=present,
            property_id=property_id,
            reason=reason,
            signal=signal,
        )


        presence_check.additional_properties = d
        return presence_check

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
