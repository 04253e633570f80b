from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.endpoint_kind import EndpointKind
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.thing_state_data_state import ThingStateDataState





T = TypeVar("T", bound="ThingStateData")



@_attrs_define
class ThingStateData:
    """ `thing.state` (spec: Events): an endpoint's state changed. `{ endpointId,
    integrationId, kind, state (by capability, as the connector reported
    it), at }`.

        Attributes:
            at (datetime.datetime):
            endpoint_id (UUID):
            integration_id (UUID):
            kind (EndpointKind):
            state (ThingStateDataState):
     """

    at: datetime.datetime
    endpoint_id: UUID
    integration_id: UUID
    kind: EndpointKind
    state: ThingStateDataState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.thing_state_data_state import ThingStateDataState # noqa: PLC0415
        at = self.at.isoformat()

        endpoint_id = str(self.endpoint_id)

        integration_id = str(self.integration_id)

        kind = self.kind.value

        state = self.state.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "endpointId": endpoint_id,
            "integrationId": integration_id,
            "kind": kind,
            "state": state,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.thing_state_data_state import ThingStateDataState # noqa: PLC0415
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        endpoint_id = UUID(d.pop("endpointId"))




        integration_id = UUID(d.pop("integrationId"))




        kind = EndpointKind(d.pop("kind"))




        state = ThingStateDataState.from_dict(d.pop("state"))




        thing_state_data = cls(
            at=at,
            endpoint_id=endpoint_id,
            integration_id=integration_id,
            kind=kind,
            state=state,
        )


        thing_state_data.additional_properties = d
        return thing_state_data

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
