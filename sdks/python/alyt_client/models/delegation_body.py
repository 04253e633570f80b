from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="DelegationBody")



@_attrs_define
class DelegationBody:
    """ A delegation.

        Attributes:
            tenant_id (str):
            until (datetime.datetime): Until when the TV controls the home's security (at most 30 days
                ahead).
     """

    tenant_id: str
    until: datetime.datetime





    def to_dict(self) -> dict[str, Any]:
        tenant_id = self.tenant_id

        until = self.until.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tenantId": tenant_id,
            "until": until,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tenant_id = d.pop("tenantId")

        until = datetime.datetime.fromisoformat(d.pop("until"))




        delegation_body = cls(
            tenant_id=tenant_id,
            until=until,
        )

        return delegation_body

