from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.quota_kind import QuotaKind
from ..models.quota_window import QuotaWindow
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PutQuotaRequest")



@_attrs_define
class PutQuotaRequest:
    """ A quota override for one developer: the kind and a Quota default value.

        Attributes:
            ceiling (int): Uses allowed per window, 0 to 2^53 - 1 (0 refuses every use).
            kind (QuotaKind): What is metered.
            window (QuotaWindow): The calendar window a quota's ceiling applies to, in UTC.
            burst_per_minute (int | None | Unset): At most this many uses a minute (>= 1); leave out for no burst limit.
                Not for VIRTUAL_DEVICES, which is a standing count.
     """

    ceiling: int
    kind: QuotaKind
    window: QuotaWindow
    burst_per_minute: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        ceiling = self.ceiling

        kind = self.kind.value

        window = self.window.value

        burst_per_minute: int | None | Unset
        if isinstance(self.burst_per_minute, Unset):
            burst_per_minute = UNSET
        else:
            burst_per_minute = self.burst_per_minute


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "ceiling": ceiling,
            "kind": kind,
            "window": window,
        })
        if burst_per_minute is not UNSET:
            field_dict["burstPerMinute"] = burst_per_minute

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ceiling = d.pop("ceiling")

        kind = QuotaKind(d.pop("kind"))




        window = QuotaWindow(d.pop("window"))




        def _parse_burst_per_minute(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        burst_per_minute = _parse_burst_per_minute(d.pop("burstPerMinute", UNSET))


        put_quota_request = cls(
            ceiling=ceiling,
            kind=kind,
            window=window,
            burst_per_minute=burst_per_minute,
        )

        return put_quota_request

