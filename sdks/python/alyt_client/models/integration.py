from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.integration_account import IntegrationAccount





T = TypeVar("T", bound="Integration")



@_attrs_define
class Integration:
    """ An integration: a connector installed in a home. Never its config.

        Attributes:
            account (IntegrationAccount | None):
            connector_id (UUID):
            created_at (datetime.datetime):
            discovered_at (datetime.datetime | None): The last discovery, or null.
            id (UUID):
            name (str): The connector's name when it was connected.
            property_id (UUID):
            tenant_id (UUID):
     """

    account: IntegrationAccount | None
    connector_id: UUID
    created_at: datetime.datetime
    discovered_at: datetime.datetime | None
    id: UUID
    name: str
    property_id: UUID
    tenant_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.integration_account import IntegrationAccount # noqa: PLC0415
        account: dict[str, Any] | None
        if isinstance(self.account, IntegrationAccount):
            account = self.account.to_dict()
        else:
            account = self.account

        connector_id = str(self.connector_id)

        created_at = self.created_at.isoformat()

        discovered_at: None | str
        if isinstance(self.discovered_at, datetime.datetime):
            discovered_at = self.discovered_at.isoformat()
        else:
            discovered_at = self.discovered_at

        id = str(self.id)

        name = self.name

        property_id = str(self.property_id)

        tenant_id = str(self.tenant_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "account": account,
            "connectorId": connector_id,
            "createdAt": created_at,
            "discoveredAt": discovered_at,
            "id": id,
            "name": name,
            "propertyId": property_id,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.integration_account import IntegrationAccount # noqa: PLC0415
        d = dict(src_dict)
        def _parse_account(data: object) -> IntegrationAccount | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                account_type_1 = IntegrationAccount.from_dict(data)



                return account_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IntegrationAccount | None, data)

        account = _parse_account(d.pop("account"))


        connector_id = UUID(d.pop("connectorId"))




        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        def _parse_discovered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                discovered_at_type_0 = datetime.datetime.fromisoformat(data)



                return discovered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        discovered_at = _parse_discovered_at(d.pop("discoveredAt"))


        id = UUID(d.pop("id"))




        name = d.pop("name")

        property_id = UUID(d.pop("propertyId"))




        tenant_id = UUID(d.pop("tenantId"))




        integration = cls(
            account=account,
            connector_id=connector_id,
            created_at=created_at,
            discovered_at=discovered_at,
            id=id,
            name=name,
            property_id=property_id,
            tenant_id=tenant_id,
        )


        integration.additional_properties = d
        return integration

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
