from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LoginRequest")



@_attrs_define
class LoginRequest:
    """ 
        Attributes:
            email (str):
            password (str):
            totp (None | str | Unset): The current TOTP code, for accounts with MFA on.
     """

    email: str
    password: str
    totp: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        email = self.email

        password = self.password

        totp: None | str | Unset
        if isinstance(self.totp, Unset):
            totp = UNSET
        else:
            totp = self.totp


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "email": email,
            "password": password,
        })
        if totp is not UNSET:
            field_dict["totp"] = totp

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        password = d.pop("password")

        def _parse_totp(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        totp = _parse_totp(d.pop("totp", UNSET))


        login_request = cls(
            email=email,
            password=password,
            totp=totp,
        )

        return login_request

