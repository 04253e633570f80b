from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.surface import Surface
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="WidgetToken")



@_attrs_define
class WidgetToken:
    """ A widget token as its person sees it (the token itself only once).

        Attributes:
            created_at (datetime.datetime):
            expires_at (datetime.datetime): When the token stops working (90 days after it was minted); mint a
                new one before then.
            id (UUID):
            name (str):
            property_id (UUID):
            surface (Surface): Where a widget token lives.
            token (str | Unset): The bearer token (`wt_…`), in the create response only: keep it in
                the widget; it is never shown again.
     """

    created_at: datetime.datetime
    expires_at: datetime.datetime
    id: UUID
    name: str
    property_id: UUID
    surface: Surface
    token: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        id = str(self.id)

        name = self.name

        property_id = str(self.property_id)

        surface = self.surface.value

        token = self.token


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "expiresAt": expires_at,
            "id": id,
            "name": name,
            "propertyId": property_id,
            "surface": surface,
        })
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        expires_at = datetime.datetime.fromisoformat(d.pop("expiresAt"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        surface = Surface(d.pop("surface"))




        token = d.pop("token", UNSET)

        widget_token = cls(
            created_at=created_at,
            expires_at=expires_at,
            id=id,
            name=name,
            property_id=property_id,
            surface=surface,
            token=token,
        )


        widget_token.additional_properties = d
        return widget_token

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
