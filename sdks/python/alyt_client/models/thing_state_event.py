from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.thing_state_data import ThingStateData





T = TypeVar("T", bound="ThingStateEvent")



@_attrs_define
class ThingStateEvent:
    """ 
        Attributes:
            created_at (datetime.datetime):
            data (ThingStateData): `thing.state` (spec: Events): an endpoint's state changed. `{ endpointId,
                integrationId, kind, state (by capability, as the connector reported
                it), at }`.
            id (str): Sortable by commit order; resume a stream after it (`Last-Event-ID`), deduplicate deliveries on it.
            tenant_id (UUID):
            type_ (Literal['thing.state']):
     """

    created_at: datetime.datetime
    data: ThingStateData
    id: str
    tenant_id: UUID
    type_: Literal['thing.state']
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.thing_state_data import ThingStateData # noqa: PLC0415
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        tenant_id = str(self.tenant_id)

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "data": data,
            "id": id,
            "tenantId": tenant_id,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.thing_state_data import ThingStateData # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        data = ThingStateData.from_dict(d.pop("data"))




        id = d.pop("id")

        tenant_id = UUID(d.pop("tenantId"))




        type_ = cast(Literal['thing.state'] , d.pop("type"))
        if type_ != 'thing.state':
            raise ValueError(f"type must match const 'thing.state', got '{type_}'")

        thing_state_event = cls(
            created_at=created_at,
            data=data,
            id=id,
            tenant_id=tenant_id,
            type_=type_,
        )


        thing_state_event.additional_properties = d
        return thing_state_event

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
