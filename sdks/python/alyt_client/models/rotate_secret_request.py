from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="RotateSecretRequest")



@_attrs_define
class RotateSecretRequest:
    """ The body of `POST /v1/developers/webhooks/{webhookId}/rotate-secret`.

        Attributes:
            grace_seconds (int | Unset): How long the replaced secret keeps signing beside the new one, in
                seconds: 0 to 604800 (7 days), default 86400 (a day).
     """

    grace_seconds: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        grace_seconds = self.grace_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if grace_seconds is not UNSET:
            field_dict["graceSeconds"] = grace_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        grace_seconds = d.pop("graceSeconds", UNSET)

        rotate_secret_request = cls(
            grace_seconds=grace_seconds,
        )

        return rotate_secret_request

