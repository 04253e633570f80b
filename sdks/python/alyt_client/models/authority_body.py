from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.authority_choice import AuthorityChoice
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AuthorityBody")



@_attrs_define
class AuthorityBody:
    """ A change of authority.

        Attributes:
            authority (AuthorityChoice): Who should run the home's security.
            tenant_id (str):
            integration_id (None | str | Unset): The security system's integration in this home (for `connector`).
            reviewed (bool | Unset): Back to the built-in engine needs an explicit reviewed choice.
     """

    authority: AuthorityChoice
    tenant_id: str
    integration_id: None | str | Unset = UNSET
    reviewed: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        authority = self.authority.value

        tenant_id = self.tenant_id

        integration_id: None | str | Unset
        if isinstance(self.integration_id, Unset):
            integration_id = UNSET
        else:
            integration_id = self.integration_id

        reviewed = self.reviewed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "authority": authority,
            "tenantId": tenant_id,
        })
        if integration_id is not UNSET:
            field_dict["integrationId"] = integration_id
        if reviewed is not UNSET:
            field_dict["reviewed"] = reviewed

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        authority = AuthorityChoice(d.pop("authority"))




        tenant_id = d.pop("tenantId")

        def _parse_integration_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        integration_id = _parse_integration_id(d.pop("integrationId", UNSET))


        reviewed = d.pop("reviewed", UNSET)

        authority_body = cls(
            authority=authority,
            tenant_id=tenant_id,
            integration_id=integration_id,
            reviewed=reviewed,
        )

        return authority_body

