from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.blocking import Blocking





T = TypeVar("T", bound="ModeReadiness")



@_attrs_define
class ModeReadiness:
    """ Whether a mode can be armed now.

        Attributes:
            blockers (list[Blocking]): Disabled, unknown, unavailable or open signals the mode watches
                (bypass them or fix them).
            ready (bool): Arming this mode now would be accepted (the same checks a mode
                request runs, with no bypass).
            why (None | str): Why arming this mode now would be refused, as the refusal says it
                (null: ready): nothing selected is watched in this mode, signals
                not ready, the hub, outputs still to restore, another authority.
     """

    blockers: list[Blocking]
    ready: bool
    why: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.blocking import Blocking # noqa: PLC0415
        blockers = []
        for blockers_item_data in self.blockers:
            blockers_item = blockers_item_data.to_dict()
            blockers.append(blockers_item)



        ready = self.ready

        why: None | str
        why = self.why


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "blockers": blockers,
            "ready": ready,
            "why": why,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.blocking import Blocking # noqa: PLC0415
        d = dict(src_dict)
        blockers = []
        _blockers = d.pop("blockers")
        for blockers_item_data in (_blockers):
            blockers_item = Blocking.from_dict(blockers_item_data)



            blockers.append(blockers_item)


        ready = d.pop("ready")

        def _parse_why(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        why = _parse_why(d.pop("why"))


        mode_readiness = cls(
            blockers=blockers,
            ready=ready,
            why=why,
        )


        mode_readiness.additional_properties = d
        return mode_readiness

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
