from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="MusicAccount")



@_attrs_define
class MusicAccount:
    """ A streaming-provider account of the household.

        Attributes:
            integration_id (UUID):
            name (str):
            provider (str): The `<provider>` of the uris it finds.
     """

    integration_id: UUID
    name: str
    provider: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        integration_id = str(self.integration_id)

        name = self.name

        provider = self.provider


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "integrationId": integration_id,
            "name": name,
            "provider": provider,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        integration_id = UUID(d.pop("integrationId"))




        name = d.pop("name")

        provider = d.pop("provider")

        music_account = cls(
            integration_id=integration_id,
            name=name,
            provider=provider,
        )


        music_account.additional_properties = d
        return music_account

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
