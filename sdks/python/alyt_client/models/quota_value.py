from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.quota_window import QuotaWindow
from ..types import UNSET, Unset






T = TypeVar("T", bound="QuotaValue")



@_attrs_define
class QuotaValue:
    """ A quota value, exactly the spec's Quota default value: `ceiling` uses per
    `window`, optionally at most `burstPerMinute` a minute.

        Attributes:
            ceiling (int): Uses allowed per window (>= 0; 0 refuses every use).
            window (QuotaWindow): The calendar window a quota's ceiling applies to, in UTC.
            burst_per_minute (int | Unset): At most this many uses per minute (>= 1); absent means no burst limit.
     """

    ceiling: int
    window: QuotaWindow
    burst_per_minute: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        ceiling = self.ceiling

        window = self.window.value

        burst_per_minute = self.burst_per_minute


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ceiling": ceiling,
            "window": window,
        })
        if burst_per_minute is not UNSET:
            field_dict["burstPerMinute"] = burst_per_minute

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ceiling = d.pop("ceiling")

        window = QuotaWindow(d.pop("window"))




        burst_per_minute = d.pop("burstPerMinute", UNSET)

        quota_value = cls(
            ceiling=ceiling,
            window=window,
            burst_per_minute=burst_per_minute,
        )

        return quota_value

