from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.hub_view_protection_type_0 import HubViewProtectionType0





T = TypeVar("T", bound="HubView")



@_attrs_define
class HubView:
    """ A hub-run home's hub.

        Attributes:
            acknowledged (bool): Whether the hub holds the configuration the home needs now: false
                while a thing found since (or a changed setting) is on its way to
                the hub, which must acknowledge it before the next arming.
            connected (bool): Its broker connection is current.
            device_id (str):
            problem (None | str): Why the hub cannot take an arming now (null: it can).
            protection (HubViewProtectionType0 | None): The protection state it reported: its generation, mode and whether
                it can protect the home (null: none yet).
            revision (int): The configuration revision last sent.
     """

    acknowledged: bool
    connected: bool
    device_id: str
    problem: None | str
    protection: HubViewProtectionType0 | None
    revision: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.hub_view_protection_type_0 import HubViewProtectionType0 # noqa: PLC0415
        acknowledged = self.acknowledged

        connected = self.connected

        device_id = self.device_id

        problem: None | str
        problem = self.problem

        protection: dict[str, Any] | None
        if isinstance(self.protection, HubViewProtectionType0):
            protection = self.protection.to_dict()
        else:
            protection = self.protection

        revision = self.revision


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "acknowledged": acknowledged,
            "connected": connected,
            "deviceId": device_id,
            "problem": problem,
            "protection": protection,
            "revision": revision,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hub_view_protection_type_0 import HubViewProtectionType0 # noqa: PLC0415
        d = dict(src_dict)
        acknowledged = d.pop("acknowledged")

        connected = d.pop("connected")

        device_id = d.pop("deviceId")

        def _parse_problem(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        problem = _parse_problem(d.pop("problem"))


        def _parse_protection(data: object) -> HubViewProtectionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                protection_type_0 = HubViewProtectionType0.from_dict(data)



                return protection_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HubViewProtectionType0 | None, data)

        protection = _parse_protection(d.pop("protection"))


        revision = d.pop("revision")

        hub_view = cls(
            acknowledged=acknowledged,
            connected=connected,
            device_id=device_id,
            problem=problem,
            protection=protection,
            revision=revision,
        )


        hub_view.additional_properties = d
        return hub_view

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
