from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.quota_source import QuotaSource
from ..models.quota_window import QuotaWindow
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="KindUsage")



@_attrs_define
class KindUsage:
    """ Usage of one kind in its current window.

        Attributes:
            ceiling (int):
            count (int): Uses in the current window; for VIRTUAL_DEVICES the devices held now.
            resets_at (datetime.datetime | None): When the count starts again from zero; null for a standing count
                (VIRTUAL_DEVICES counts the devices that exist, which no window resets).
            source (QuotaSource): Whether an effective quota is the platform default or a per-developer override.
            window (QuotaWindow): The calendar window a quota's ceiling applies to, in UTC.
            window_key (None | str): The current window (`2026-11-21`, `2026-11`); null for a standing count.
            burst_count (int | Unset): Uses in the current minute, when there is a burst limit.
            burst_per_minute (int | Unset): The burst limit, when there is one.
     """

    ceiling: int
    count: int
    resets_at: datetime.datetime | None
    source: QuotaSource
    window: QuotaWindow
    window_key: None | str
    burst_count: int | Unset = UNSET
    burst_per_minute: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        ceiling = self.ceiling

        count = self.count

        resets_at: None | str
        if isinstance(self.resets_at, datetime.datetime):
            resets_at = self.resets_at.isoformat()
        else:
            resets_at = self.resets_at

        source = self.source.value

        window = self.window.value

        window_key: None | str
        window_key = self.window_key

        burst_count = self.burst_count

        burst_per_minute = self.burst_per_minute


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ceiling": ceiling,
            "count": count,
            "resetsAt": resets_at,
            "source": source,
            "window": window,
            "windowKey": window_key,
        })
        if burst_count is not UNSET:
            field_dict["burstCount"] = burst_count
        if burst_per_minute is not UNSET:
            field_dict["burstPerMinute"] = burst_per_minute

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ceiling = d.pop("ceiling")

        count = d.pop("count")

        def _parse_resets_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                resets_at_type_0 = datetime.datetime.fromisoformat(data)



                return resets_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        resets_at = _parse_resets_at(d.pop("resetsAt"))


        source = QuotaSource(d.pop("source"))




        window = QuotaWindow(d.pop("window"))




        def _parse_window_key(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        window_key = _parse_window_key(d.pop("windowKey"))


        burst_count = d.pop("burstCount", UNSET)

        burst_per_minute = d.pop("burstPerMinute", UNSET)

        kind_usage = cls(
            ceiling=ceiling,
            count=count,
            resets_at=resets_at,
            source=source,
            window=window,
            window_key=window_key,
            burst_count=burst_count,
            burst_per_minute=burst_per_minute,
        )


        kind_usage.additional_properties = d
        return kind_usage

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
