from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.liveness_state import LivenessState
from typing import cast
import datetime






T = TypeVar("T", bound="Liveness")



@_attrs_define
class Liveness:
    """ The spec's liveness object of a device row.

        Attributes:
            last_seen (datetime.datetime | None):
            seconds_since_last_seen (int | None): Whole seconds between `lastSeen` and the judgement (0 when `lastSeen`
                is ahead of the clock); null when the device was never heard from.
            state (LivenessState):
            window_seconds (int): The heartbeat window used for the judgement.
     """

    last_seen: datetime.datetime | None
    seconds_since_last_seen: int | None
    state: LivenessState
    window_seconds: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        last_seen: None | str
        if isinstance(self.last_seen, datetime.datetime):
            last_seen = self.last_seen.isoformat()
        else:
            last_seen = self.last_seen

        seconds_since_last_seen: int | None
        seconds_since_last_seen = self.seconds_since_last_seen

        state = self.state.value

        window_seconds = self.window_seconds


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "lastSeen": last_seen,
            "secondsSinceLastSeen": seconds_since_last_seen,
            "state": state,
            "windowSeconds": window_seconds,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_last_seen(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_type_0 = datetime.datetime.fromisoformat(data)



                return last_seen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_seen = _parse_last_seen(d.pop("lastSeen"))


        def _parse_seconds_since_last_seen(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        seconds_since_last_seen = _parse_seconds_since_last_seen(d.pop("secondsSinceLastSeen"))


        state = LivenessState(d.pop("state"))




        window_seconds = d.pop("windowSeconds")

        liveness = cls(
            last_seen=last_seen,
            seconds_since_last_seen=seconds_since_last_seen,
            state=state,
            window_seconds=window_seconds,
        )


        liveness.additional_properties = d
        return liveness

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
