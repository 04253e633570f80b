from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="ControlOption")



@_attrs_define
class ControlOption:
    """ One choice of a `select`, or a label for one value of a `readout`
    (e.g. `true` -> "Open" on a contact sensor).

    `value` is any JSON scalar because it is compared with, or sent as, the
    state value verbatim: thermostat modes are strings, but contact and motion
    readouts are booleans. [`crate::capability::validate`] only accepts
    strings, numbers and booleans.

        Attributes:
            label (str):
            value (Any):
            icon (str | Unset):
     """

    label: str
    value: Any
    icon: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        label = self.label

        value = self.value

        icon = self.icon


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "label": label,
            "value": value,
        })
        if icon is not UNSET:
            field_dict["icon"] = icon

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        label = d.pop("label")

        value = d.pop("value")

        icon = d.pop("icon", UNSET)

        control_option = cls(
            label=label,
            value=value,
            icon=icon,
        )


        control_option.additional_properties = d
        return control_option

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
