from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.token_type import TokenType






T = TypeVar("T", bound="AppToken")



@_attrs_define
class AppToken:
    """ 
        Attributes:
            access_token (str): Authenticates as the key (same scopes and tenants) for five minutes.
            expires_in (int): Always 300.
            token_type (TokenType):
     """

    access_token: str
    expires_in: int
    token_type: TokenType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        access_token = self.access_token

        expires_in = self.expires_in

        token_type = self.token_type.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "accessToken": access_token,
            "expiresIn": expires_in,
            "tokenType": token_type,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        access_token = d.pop("accessToken")

        expires_in = d.pop("expiresIn")

        token_type = TokenType(d.pop("tokenType"))




        app_token = cls(
            access_token=access_token,
            expires_in=expires_in,
            token_type=token_type,
        )


        app_token.additional_properties = d
        return app_token

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
