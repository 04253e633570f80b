from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ResetPasswordRequest")



@_attrs_define
class ResetPasswordRequest:
    """ 
        Attributes:
            password (str):
            token (str): The token from the reset link (at least 16 characters).
     """

    password: str
    token: str





    def to_dict(self) -> dict[str, Any]:
        password = self.password

        token = self.token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "password": password,
            "token": token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        password = d.pop("password")

        token = d.pop("token")

        reset_password_request = cls(
            password=password,
            token=token,
        )

        return reset_password_request

