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

if TYPE_CHECKING:
  from ..models.lock_source_view import LockSourceView





T = TypeVar("T", bound="IncidentView")



@_attrs_define
class IncidentView:
    """ An entry of the incident history: a detection's incident, or a keypad
    disarm with its source.

        Attributes:
            acknowledged_by (None | str): The resident who acknowledged it (acknowledging is separate from Off).
            alarm_at (datetime.datetime | None):
            alarmed (bool): Whether the alarm sounded.
            generation (int):
            kind (str): `detection` (a watched signal fired) or `keypad-disarm` (a verified
                keypad code turned the home Off).
            number (int):
            opened_at (datetime.datetime):
            signal (None | Signal):
            source (LockSourceView | None):
            state (str): `entry` (the alarm sounds at `alarmAt` unless turned Off), `alarm`,
                `cleared`.
            thing_id (UUID): The thing that detected, or the lock whose keypad it was.
     """

    acknowledged_by: None | str
    alarm_at: datetime.datetime | None
    alarmed: bool
    generation: int
    kind: str
    number: int
    opened_at: datetime.datetime
    signal: None | Signal
    source: LockSourceView | None
    state: str
    thing_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.lock_source_view import LockSourceView # noqa: PLC0415
        acknowledged_by: None | str
        acknowledged_by = self.acknowledged_by

        alarm_at: None | str
        if isinstance(self.alarm_at, datetime.datetime):
            alarm_at = self.alarm_at.isoformat()
        else:
            alarm_at = self.alarm_at

        alarmed = self.alarmed

        generation = self.generation

        kind = self.kind

        number = self.number

        opened_at = self.opened_at.isoformat()

        signal: None | str
        if isinstance(self.signal, Signal):
            signal = self.signal.value
        else:
            signal = self.signal

        source: dict[str, Any] | None
        if isinstance(self.source, LockSourceView):
            source = self.source.to_dict()
        else:
            source = self.source

        state = self.state

        thing_id = str(self.thing_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "acknowledgedBy": acknowledged_by,
            "alarmAt": alarm_at,
            "alarmed": alarmed,
            "generation": generation,
            "kind": kind,
            "number": number,
            "openedAt": opened_at,
            "signal": signal,
            "source": source,
            "state": state,
            "thingId": thing_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.lock_source_view import LockSourceView # noqa: PLC0415
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

        kind = d.pop("kind")

        number = d.pop("number")

        opened_at = datetime.datetime.fromisoformat(d.pop("openedAt"))




        def _parse_signal(data: object) -> None | Signal:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                signal_type_1 = Signal(data)



                return signal_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Signal, data)

        signal = _parse_signal(d.pop("signal"))


        def _parse_source(data: object) -> LockSourceView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                source_type_1 = LockSourceView.from_dict(data)



                return source_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LockSourceView | None, data)

        source = _parse_source(d.pop("source"))


        state = d.pop("state")

        thing_id = UUID(d.pop("thingId"))




        incident_view = cls(
            acknowledged_by=acknowledged_by,
            alarm_at=alarm_at,
            alarmed=alarmed,
            generation=generation,
            kind=kind,
            number=number,
            opened_at=opened_at,
            signal=signal,
            source=source,
            state=state,
            thing_id=thing_id,
        )


        incident_view.additional_properties = d
        return incident_view

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
