from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
            tenant_id (None | Unset | UUID):
     """

    from_: list[UUID]
    tenant_id: None | Unset | UUID = UNSET





    def to_dict(self) -> dict[str, Any]:
        from_ = []
        for from_item_data in self.from_:
            from_item = str(from_item_data)
            from_.append(from_item)



        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from": from_,
        })
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = []
        _from_ = d.pop("from")
        for from_item_data in (_from_):
            from_item = UUID(from_item_data)



            from_.append(from_item)


        def _parse_tenant_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_1 = UUID(data)



                return tenant_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenantId", UNSET))


        merge_rooms_request = cls(
            from_=from_,
            tenant_id=tenant_id,
        )

        return merge_rooms_request

