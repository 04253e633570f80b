from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.platform_role import PlatformRole
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.claims_clients import ClaimsClients
  from ..models.claims_tenants import ClaimsTenants





T = TypeVar("T", bound="Claims")



@_attrs_define
class Claims:
    """ The claims of a session access token, exactly the spec's Claims object.

        Attributes:
            clients (ClaimsClients):
            email (str):
            exp (int):
            iat (int):
            jti (str):
            sub (UUID):
            tenants (ClaimsTenants):
            platform_role (PlatformRole | Unset): Platform staff roles.
     """

    clients: ClaimsClients
    email: str
    exp: int
    iat: int
    jti: str
    sub: UUID
    tenants: ClaimsTenants
    platform_role: PlatformRole | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.claims_clients import ClaimsClients # noqa: PLC0415
        from ..models.claims_tenants import ClaimsTenants # noqa: PLC0415
        clients = self.clients.to_dict()

        email = self.email

        exp = self.exp

        iat = self.iat

        jti = self.jti

        sub = str(self.sub)

        tenants = self.tenants.to_dict()

        platform_role: str | Unset = UNSET
        if not isinstance(self.platform_role, Unset):
            platform_role = self.platform_role.value



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "clients": clients,
            "email": email,
            "exp": exp,
            "iat": iat,
            "jti": jti,
            "sub": sub,
            "tenants": tenants,
        })
        if platform_role is not UNSET:
            field_dict["platformRole"] = platform_role

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.claims_clients import ClaimsClients # noqa: PLC0415
        from ..models.claims_tenants import ClaimsTenants # noqa: PLC0415
        d = dict(src_dict)
        clients = ClaimsClients.from_dict(d.pop("clients"))




        email = d.pop("email")

        exp = d.pop("exp")

        iat = d.pop("iat")

        jti = d.pop("jti")

        sub = UUID(d.pop("sub"))




        tenants = ClaimsTenants.from_dict(d.pop("tenants"))




        _platform_role = d.pop("platformRole", UNSET)
        platform_role: PlatformRole | Unset
        if isinstance(_platform_role,  Unset):
            platform_role = UNSET
        else:
            platform_role = PlatformRole(_platform_role)




        claims = cls(
            clients=clients,
            email=email,
            exp=exp,
            iat=iat,
            jti=jti,
            sub=sub,
            tenants=tenants,
            platform_role=platform_role,
        )


        claims.additional_properties = d
        return claims

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
