from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.control_binding import ControlBinding
from ..models.control_group import ControlGroup
from ..models.primitive import Primitive
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.control_option import ControlOption





T = TypeVar("T", bound="Control")



@_attrs_define
class Control:
    """ One control of a capability. Its state is addressed as
    `capabilityId.key`.

        Attributes:
            binding (ControlBinding): Where a control's value lives: the live device state or the stored
                per-capability settings.
            group (ControlGroup): Which section of a thing's page a control is drawn in.
            key (str):
            label (str):
            order (int):
            primitive (Primitive): Closed set of control primitives. Clients show a primitive they do not know as a read-
                only labelled row.
            readable (bool):
            writable (bool):
            confirm (bool | Unset): Ask the person before sending a change.
            icon (str | Unset):
            max_ (float | Unset):
            min_ (float | Unset):
            options (list[ControlOption] | Unset):
            requires (str | Unset): A feature name; the control applies only to things reporting it.
            step (float | Unset):
            unit (str | Unset):
     """

    binding: ControlBinding
    group: ControlGroup
    key: str
    label: str
    order: int
    primitive: Primitive
    readable: bool
    writable: bool
    confirm: bool | Unset = UNSET
    icon: str | Unset = UNSET
    max_: float | Unset = UNSET
    min_: float | Unset = UNSET
    options: list[ControlOption] | Unset = UNSET
    requires: str | Unset = UNSET
    step: float | Unset = UNSET
    unit: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.control_option import ControlOption # noqa: PLC0415
        binding = self.binding.value

        group = self.group.value

        key = self.key

        label = self.label

        order = self.order

        primitive = self.primitive.value

        readable = self.readable

        writable = self.writable

        confirm = self.confirm

        icon = self.icon

        max_ = self.max_

        min_ = self.min_

        options: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = []
            for options_item_data in self.options:
                options_item = options_item_data.to_dict()
                options.append(options_item)



        requires = self.requires

        step = self.step

        unit = self.unit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "binding": binding,
            "group": group,
            "key": key,
            "label": label,
            "order": order,
            "primitive": primitive,
            "readable": readable,
            "writable": writable,
        })
        if confirm is not UNSET:
            field_dict["confirm"] = confirm
        if icon is not UNSET:
            field_dict["icon"] = icon
        if max_ is not UNSET:
            field_dict["max"] = max_
        if min_ is not UNSET:
            field_dict["min"] = min_
        if options is not UNSET:
            field_dict["options"] = options
        if requires is not UNSET:
            field_dict["requires"] = requires
        if step is not UNSET:
            field_dict["step"] = step
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.control_option import ControlOption # noqa: PLC0415
        d = dict(src_dict)
        binding = ControlBinding(d.pop("binding"))




        group = ControlGroup(d.pop("group"))




        key = d.pop("key")

        label = d.pop("label")

        order = d.pop("order")

        primitive = Primitive(d.pop("primitive"))




        readable = d.pop("readable")

        writable = d.pop("writable")

        confirm = d.pop("confirm", UNSET)

        icon = d.pop("icon", UNSET)

        max_ = d.pop("max", UNSET)

        min_ = d.pop("min", UNSET)

        _options = d.pop("options", UNSET)
        options: list[ControlOption] | Unset = UNSET
        if _options is not UNSET:
            options = []
            for options_item_data in _options:
                options_item = ControlOption.from_dict(options_item_data)



                options.append(options_item)


        requires = d.pop("requires", UNSET)

        step = d.pop("step", UNSET)

        unit = d.pop("unit", UNSET)

        control = cls(
            binding=binding,
            group=group,
            key=key,
            label=label,
            order=order,
            primitive=primitive,
            readable=readable,
            writable=writable,
            confirm=confirm,
            icon=icon,
            max_=max_,
            min_=min_,
            options=options,
            requires=requires,
            step=step,
            unit=unit,
        )


        control.additional_properties = d
        return control

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
