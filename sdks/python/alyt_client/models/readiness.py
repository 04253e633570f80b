from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.mode_readiness import ModeReadiness





T = TypeVar("T", bound="Readiness")



@_attrs_define
class Readiness:
    """ 
        Attributes:
            away (ModeReadiness): Whether a mode can be armed now.
            home (ModeReadiness): Whether a mode can be armed now.
            sleep (ModeReadiness): Whether a mode can be armed now.
     """

    away: ModeReadiness
    home: ModeReadiness
    sleep: ModeReadiness
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.mode_readiness import ModeReadiness # noqa: PLC0415
        away = self.away.to_dict()

        home = self.home.to_dict()

        sleep = self.sleep.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "away": away,
            "home": home,
            "sleep": sleep,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.mode_readiness import ModeReadiness # noqa: PLC0415
        d = dict(src_dict)
        away = ModeReadiness.from_dict(d.pop("away"))




        home = ModeReadiness.from_dict(d.pop("home"))




        sleep = ModeReadiness.from_dict(d.pop("sleep"))




        readiness = cls(
            away=away,
            home=home,
            sleep=sleep,
        )


        readiness.additional_properties = d
        return readiness

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
