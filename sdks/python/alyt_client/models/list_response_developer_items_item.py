from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.developer_status import DeveloperStatus
from ..models.developer_type import DeveloperType
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ListResponseDeveloperItemsItem")



@_attrs_define
class ListResponseDeveloperItemsItem:
    """ A developer account, as the spec's Developer object.

        Attributes:
            created_at (datetime.datetime):
            display_name (str):
            email (str):
            id (UUID):
            mfa_enabled_at (datetime.datetime | None):
            organisation (None | str):
            sandbox_tenant_id (None | UUID):
            status (DeveloperStatus):
            type_ (DeveloperType):
            user_id (UUID):
            verified_at (datetime.datetime | None):
            website (None | str):
     """

    created_at: datetime.datetime
    display_name: str
    email: str
    id: UUID
    mfa_enabled_at: datetime.datetime | None
    organisation: None | str
    sandbox_tenant_id: None | UUID
    status: DeveloperStatus
    type_: DeveloperType
    user_id: UUID
    verified_at: datetime.datetime | None
    website: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        display_name = self.display_name

        email = self.email

        id = str(self.id)

        mfa_enabled_at: None | str
        if isinstance(self.mfa_enabled_at, datetime.datetime):
            mfa_enabled_at = self.mfa_enabled_at.isoformat()
        else:
            mfa_enabled_at = self.mfa_enabled_at

        organisation: None | str
        organisation = self.organisation

        sandbox_tenant_id: None | str
        if isinstance(self.sandbox_tenant_id, UUID):
            sandbox_tenant_id = str(self.sandbox_tenant_id)
        else:
            sandbox_tenant_id = self.sandbox_tenant_id

        status = self.status.value

        type_ = self.type_.value

        user_id = str(self.user_id)

        verified_at: None | str
        if isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        website: None | str
        website = self.website


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "displayName": display_name,
            "email": email,
            "id": id,
            "mfaEnabledAt": mfa_enabled_at,
            "organisation": organisation,
            "sandboxTenantId": sandbox_tenant_id,
            "status": status,
            "type": type_,
            "userId": user_id,
            "verifiedAt": verified_at,
            "website": website,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        display_name = d.pop("displayName")

        email = d.pop("email")

        id = UUID(d.pop("id"))




        def _parse_mfa_enabled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mfa_enabled_at_type_0 = datetime.datetime.fromisoformat(data)



                return mfa_enabled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        mfa_enabled_at = _parse_mfa_enabled_at(d.pop("mfaEnabledAt"))


        def _parse_organisation(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        organisation = _parse_organisation(d.pop("organisation"))


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


        status = DeveloperStatus(d.pop("status"))




        type_ = DeveloperType(d.pop("type"))




        user_id = UUID(d.pop("userId"))




        def _parse_verified_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_0 = datetime.datetime.fromisoformat(data)



                return verified_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        verified_at = _parse_verified_at(d.pop("verifiedAt"))


        def _parse_website(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        website = _parse_website(d.pop("website"))


        list_response_developer_items_item = cls(
            created_at=created_at,
            display_name=display_name,
            email=email,
            id=id,
            mfa_enabled_at=mfa_enabled_at,
            organisation=organisation,
            sandbox_tenant_id=sandbox_tenant_id,
            status=status,
            type_=type_,
            user_id=user_id,
            verified_at=verified_at,
            website=website,
        )


        list_response_developer_items_item.additional_properties = d
        return list_response_developer_items_item

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
