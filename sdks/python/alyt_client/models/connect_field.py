from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.connect_field_kind import ConnectFieldKind
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.connect_field_option import ConnectFieldOption





T = TypeVar("T", bound="ConnectField")



@_attrs_define
class ConnectField:
    """ A connect-form field the connector asks for (spec: Connect field).

        Attributes:
            key (str):
            kind (ConnectFieldKind): The kind of a connect field.
            label (str):
            required (bool):
            secret (bool): A secret field is never shown back nor logged.
            help_ (str | Unset):
            options (list[ConnectFieldOption] | Unset):
            placeholder (str | Unset):
     """

    key: str
    kind: ConnectFieldKind
    label: str
    required: bool
    secret: bool
    help_: str | Unset = UNSET
    options: list[ConnectFieldOption] | Unset = UNSET
    placeholder: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.connect_field_option import ConnectFieldOption # noqa: PLC0415
        key = self.key

        kind = self.kind.value

        label = self.label

        required = self.required

        secret = self.secret

        help_ = self.help_

        options: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = []
            for options_item_data in self.options:
                options_item = options_item_data.to_dict()
                options.append(options_item)



        placeholder = self.placeholder


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "key": key,
            "kind": kind,
            "label": label,
            "required": required,
            "secret": secret,
        })
        if help_ is not UNSET:
            field_dict["help"] = help_
        if options is not UNSET:
            field_dict["options"] = options
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.connect_field_option import ConnectFieldOption # noqa: PLC0415
        d = dict(src_dict)
        key = d.pop("key")

        kind = ConnectFieldKind(d.pop("kind"))




        label = d.pop("label")

        required = d.pop("required")

        secret = d.pop("secret")

        help_ = d.pop("help", UNSET)

        _options = d.pop("options", UNSET)
        options: list[ConnectFieldOption] | Unset = UNSET
        if _options is not UNSET:
            options = []
            for options_item_data in _options:
                options_item = ConnectFieldOption.from_dict(options_item_data)



                options.append(options_item)


        placeholder = d.pop("placeholder", UNSET)

        connect_field = cls(
            key=key,
            kind=kind,
            label=label,
            required=required,
            secret=secret,
            help_=help_,
            options=options,
            placeholder=placeholder,
        )


        connect_field.additional_properties = d
        return connect_field

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
