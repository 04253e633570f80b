from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Connector")



@_attrs_define
class Connector:
    """ A connector as its developer sees it; never its runtime token.

        Attributes:
            created_at (datetime.datetime):
            id (UUID):
            name (str):
            published (bool): Published to the catalogue (installable by any household). False
                until the catalogue review publishes it.
            sandbox_tenant_id (None | UUID):
            server_url (str): The connector server's base URL; protocol calls go to
                `{serverUrl}/v1/...`.
            slug (str):
     """

    created_at: datetime.datetime
    id: UUID
    name: str
    published: bool
    sandbox_tenant_id: None | UUID
    server_url: str
    slug: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        published = self.published

        sandbox_tenant_id: None | str
        if isinstance(self.sandbox_tenant_id, UUID):
            sandbox_tenant_id = str(self.sandbox_tenant_id)
        else:
            sandbox_tenant_id = self.sandbox_tenant_id

        server_url = self.server_url

        slug = self.slug


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "id": id,
            "name": name,
            "published": published,
            "sandboxTenantId": sandbox_tenant_id,
            "serverUrl": server_url,
            "slug": slug,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        published = d.pop("published")

        def _parse_sandbox_tenant_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sandbox_tenant_id_type_1 = UUID(data)



                return sandbox_tenant_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        sandbox_tenant_id = _parse_sandbox_tenant_id(d.pop("sandboxTenantId"))


        server_url = d.pop("serverUrl")

        slug = d.pop("slug")

        connector = cls(
            created_at=created_at,
            id=id,
            name=name,
            published=published,
            sandbox_tenant_id=sandbox_tenant_id,
            server_url=server_url,
            slug=slug,
        )


        connector.additional_properties = d
        return connector

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
