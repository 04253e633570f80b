from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.merge_failure import MergeFailure
  from ..models.room_view import RoomView





T = TypeVar("T", bound="MergeResult")



@_attrs_define
class MergeResult:
    """ The answer of a merge.

        Attributes:
            failed (MergeFailure | None):
            merged (list[UUID]): Rooms whose members moved and which are removed, in order.
            not_processed (list[UUID]): Rooms after the failed one, left as they were.
            room (RoomView): The resolved room view (spec: Room and overview).
     """

    failed: MergeFailure | None
    merged: list[UUID]
    not_processed: list[UUID]
    room: RoomView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.merge_failure import MergeFailure # noqa: PLC0415
        from ..models.room_view import RoomView # noqa: PLC0415
        failed: dict[str, Any] | None
        if isinstance(self.failed, MergeFailure):
            failed = self.failed.to_dict()
        else:
            failed = self.failed

        merged = []
        for merged_item_data in self.merged:
            merged_item = str(merged_item_data)
            merged.append(merged_item)



        not_processed = []
        for not_processed_item_data in self.not_processed:
            not_processed_item = str(not_processed_item_data)
            not_processed.append(not_processed_item)



        room = self.room.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "failed": failed,
            "merged": merged,
            "notProcessed": not_processed,
            "room": room,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.merge_failure import MergeFailure # noqa: PLC0415
        from ..models.room_view import RoomView # noqa: PLC0415
        d = dict(src_dict)
        def _parse_failed(data: object) -> MergeFailure | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failed_type_1 = MergeFailure.from_dict(data)



                return failed_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MergeFailure | None, data)

        failed = _parse_failed(d.pop("failed"))


        merged = []
        _merged = d.pop("merged")
        for merged_item_data in (_merged):
            merged_item = UUID(merged_item_data)



            merged.append(merged_item)


        not_processed = []
        _not_processed = d.pop("notProcessed")
        for not_processed_item_data in (_not_processed):
            not_processed_item = UUID(not_processed_item_data)



            not_processed.append(not_processed_item)


        room = RoomView.from_dict(d.pop("room"))




        merge_result = cls(
            failed=failed,
            merged=merged,
            not_processed=not_processed,
            room=room,
        )


        merge_result.additional_properties = d
        return merge_result

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
