from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.signal import Signal
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ListResponseIncidentViewItemsItem")



@_attrs_define
class ListResponseIncidentViewItemsItem:
    """ An incident.

        Attributes:
            acknowledged_by (None | str): The resident who acknowledged it (acknowledging is separate from Off).
            alarm_at (datetime.datetime | None):
            alarmed (bool): Whether the alarm sounded.
            generation (int):
            number (int):
            opened_at (datetime.datetime):
            signal (Signal): What a detector senses (the families of spec I that detect).
            state (str): `entry` (the alarm sounds at `alarmAt` unless turned Off), `alarm`,
                `cleared`.
            thing_id (UUID):
     """

    acknowledged_by: None | str
    alarm_at: datetime.datetime | None
    alarmed: bool
    generation: int
    number: int
    opened_at: datetime.datetime
    signal: Signal
    state: str
    thing_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        acknowledged_by: None | str
        acknowledged_by = self.acknowledged_by

        alarm_at: None | str
        if isinstance(self.alarm_at, datetime.datetime):
            alarm_at = self.alarm_at.isoformat()
        else:
            alarm_at = self.alarm_at

        alarmed = self.alarmed

        generation = self.generation

        number = self.number

        opened_at = self.opened_at.isoformat()

        signal = self.signal.value

        state = self.state

        thing_id = str(self.thing_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "acknowledgedBy": acknowledged_by,
            "alarmAt": alarm_at,
            "alarmed": alarmed,
            "generation": generation,
            "number": number,
            "openedAt": opened_at,
            "signal": signal,
            "state": state,
            "thingId": thing_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_acknowledged_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        acknowledged_by = _parse_acknowledged_by(d.pop("acknowledgedBy"))


        def _parse_alarm_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                alarm_at_type_0 = datetime.datetime.fromisoformat(data)



                return alarm_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        alarm_at = _parse_alarm_at(d.pop("alarmAt"))


        alarmed = d.pop("alarmed")

        generation = d.pop("generation")

        number = d.pop("number")

        opened_at = datetime.datetime.fromisoformat(d.pop("openedAt"))




        signal = Signal(d.pop("signal"))




        state = d.pop("state")

        thing_id = UUID(d.pop("thingId"))




        list_response_incident_view_items_item = cls(
            acknowledged_by=acknowledged_by,
            alarm_at=alarm_at,
            alarmed=alarmed,
            generation=generation,
            number=number,
            opened_at=opened_at,
            signal=signal,
            state=state,
            thing_id=thing_id,
        )


        list_response_incident_view_items_item.additional_properties = d
        return list_response_incident_view_items_item

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
