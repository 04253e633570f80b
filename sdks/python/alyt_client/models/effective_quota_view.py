from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.quota_kind import QuotaKind
from ..models.quota_source import QuotaSource
from ..models.quota_window import QuotaWindow
from ..types import UNSET, Unset






T = TypeVar("T", bound="EffectiveQuotaView")



@_attrs_define
class EffectiveQuotaView:
    """ The quota that applies to the developer for one kind.

        Attributes:
            ceiling (int): Uses allowed per window (for VIRTUAL_DEVICES: devices held at once).
            kind (QuotaKind): What is metered.
            source (QuotaSource): Whether an effective quota is the platform default or a per-developer override.
            window (QuotaWindow): The calendar window a quota's ceiling applies to, in UTC.
            burst_per_minute (int | Unset): At most this many uses a minute; absent without a burst limit.
     """

    ceiling: int
    kind: QuotaKind
    source: QuotaSource
    window: QuotaWindow
    burst_per_minute: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        ceiling = self.ceiling

        kind = self.kind.value

        source = self.source.value

        window = self.window.value

        burst_per_minute = self.burst_per_minute


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "ceiling": ceiling,
            "kind": kind,
            "source": source,
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




        source = QuotaSource(d.pop("source"))




        window = QuotaWindow(d.pop("window"))




        burst_per_minute = d.pop("burstPerMinute", UNSET)

        effective_quota_view = cls(
            ceiling=ceiling,
            kind=kind,
            source=source,
            window=window,
            burst_per_minute=burst_per_minute,
        )


        effective_quota_view.additional_properties = d
        return effective_quota_view

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
