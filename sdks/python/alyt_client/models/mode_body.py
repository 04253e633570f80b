from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.mode import Mode
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.pinned_thing import PinnedThing





T = TypeVar("T", bound="ModeBody")



@_attrs_define
class ModeBody:
    """ A mode request.

        Attributes:
            generation (int): The generation the person read (Off with an older one is refused: it
                cannot end a newer armed period).
            mode (Mode): A home's security mode.
            request_id (UUID): A UUID per request: a repeat with the same body answers the same;
                the same id with another body is refused.
            revision (int): The configuration revision the person reviewed (any value for Off).
            tenant_id (str):
            bypass (list[PinnedThing] | Unset): Things whose signals this armed period leaves out.
     """

    generation: int
    mode: Mode
    request_id: UUID
    revision: int
    tenant_id: str
    bypass: list[PinnedThing] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        generation = self.generation

        mode = self.mode.value

        request_id = str(self.request_id)

        revision = self.revision

        tenant_id = self.tenant_id

        bypass: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.bypass, Unset):
            bypass = []
            for bypass_item_data in self.bypass:
                bypass_item = bypass_item_data.to_dict()
                bypass.append(bypass_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "generation": generation,
            "mode": mode,
            "requestId": request_id,
            "revision": revision,
            "tenantId": tenant_id,
        })
        if bypass is not UNSET:
            field_dict["bypass"] = bypass

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pinned_thing import PinnedThing # noqa: PLC0415
        d = dict(src_dict)
        generation = d.pop("generation")

        mode = Mode(d.pop("mode"))




        request_id = UUID(d.pop("requestId"))




        revision = d.pop("revision")

        tenant_id = d.pop("tenantId")

        _bypass = d.pop("bypass", UNSET)
        bypass: list[PinnedThing] | Unset = UNSET
        if _bypass is not UNSET:
            bypass = []
            for bypass_item_data in _bypass:
                bypass_item = PinnedThing.from_dict(bypass_item_data)



                bypass.append(bypass_item)


        mode_body = cls(
            generation=generation,
            mode=mode,
            request_id=request_id,
            revision=revision,
            tenant_id=tenant_id,
            bypass=bypass,
        )

        return mode_body

