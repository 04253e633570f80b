from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="EnableWebhookRequest")



@_attrs_define
class EnableWebhookRequest:
    """ The body of `POST /v1/developers/webhooks/{webhookId}/enable`.

        Attributes:
            recover (bool | Unset): Also recover what the endpoint missed: every event after the newest
                one its log shows delivered (none: since its creation) that it did
                not get, as `POST …/recover` does. Default false.
     """

    recover: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        recover = self.recover


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if recover is not UNSET:
            field_dict["recover"] = recover

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        recover = d.pop("recover", UNSET)

        enable_webhook_request = cls(
            recover=recover,
        )

        return enable_webhook_request

