from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="AppTokenRequest")



@_attrs_define
class AppTokenRequest:
    """ 
        Attributes:
            app_id (UUID):
            app_secret (str): The App secret: the key's secret.
     """

    app_id: UUID
    app_secret: str





    def to_dict(self) -> dict[str, Any]:
        app_id = str(self.app_id)

        app_secret = self.app_secret


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "appId": app_id,
            "appSecret": app_secret,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        app_id = UUID(d.pop("appId"))




        app_secret = d.pop("appSecret")

        app_token_request = cls(
            app_id=app_id,
            app_secret=app_secret,
        )

        return app_token_request

