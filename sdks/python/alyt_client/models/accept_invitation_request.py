from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AcceptInvitationRequest")



@_attrs_define
class AcceptInvitationRequest:
    """ Accepting a link: a new person names themselves and chooses a password;
    an address that has an account sends that account's password (and its
    TOTP code when MFA is on).

        Attributes:
            password (str):
            name (None | str | Unset): A new person's name (1-100 characters); not sent for an existing
                account.
            totp (None | str | Unset):
     """

    password: str
    name: None | str | Unset = UNSET
    totp: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        password = self.password

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        totp: None | str | Unset
        if isinstance(self.totp, Unset):
            totp = UNSET
        else:
            totp = self.totp


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "password": password,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if totp is not UNSET:
            field_dict["totp"] = totp

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        password = d.pop("password")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_totp(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        totp = _parse_totp(d.pop("totp", UNSET))


        accept_invitation_request = cls(
            password=password,
            name=name,
            totp=totp,
        )

        return accept_invitation_request

