from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="MergeRoomsRequest")



@_attrs_define
class MergeRoomsRequest:
    """ The body of `POST /v1/rooms/{roomId}/merge`.

        Attributes:
            from_ (list[UUID]): Rooms of the same home merged into the room of the path, in this
                order (1-20, distinct, not the kept room).
            tenant_id (UUID):
     """

    from_: list[UUID]
    tenant_id: UUID





    def to_dict(self) -> dict[str, Any]:
        from_ = []
        for from_item_data in self.from_:
            from_item = str(from_item_data)
            from_.append(from_item)



        tenant_id = str(self.tenant_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from": from_,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = []
        _from_ = d.pop("from")
        for from_item_data in (_from_):
            from_item = UUID(from_item_data)



            from_.append(from_item)


        tenant_id = UUID(d.pop("tenantId"))




        merge_rooms_request = cls(
            from_=from_,
            tenant_id=tenant_id,
        )

        return merge_rooms_request

