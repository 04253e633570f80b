from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="CreateConnectorRequest")



@_attrs_define
class CreateConnectorRequest:
    """ 
        Attributes:
            name (str): 1-80 characters; households see it as the integration's name.
            server_url (str): The connector server's base URL: https on the hosted platform.
            slug (str): 2-40 characters: lowercase letters, digits and hyphens, starting with
                a letter. Unique across the platform.
     """

    name: str
    server_url: str
    slug: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        server_url = self.server_url

        slug = self.slug


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "serverUrl": server_url,
            "slug": slug,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        server_url = d.pop("serverUrl")

        slug = d.pop("slug")

        create_connector_request = cls(
            name=name,
            server_url=server_url,
            slug=slug,
        )

        return create_connector_request

