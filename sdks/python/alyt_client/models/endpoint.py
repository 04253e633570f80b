from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_capability import DeviceCapability
from ..models.endpoint_kind import EndpointKind
from ..models.presented_as import PresentedAs
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.endpoint_capabilities_type_0 import EndpointCapabilitiesType0
  from ..models.endpoint_state import EndpointState





T = TypeVar("T", bound="Endpoint")



@_attrs_define
class Endpoint:
    """ An endpoint (spec: Resources > Endpoint): the raw member object of a
    room view and of an integration's endpoint list.

        Attributes:
            address (None | str):
            capabilities (EndpointCapabilitiesType0 | None): Provider detail as the connector gave it (e.g. a speaker's
                source
                modes), or null.
            capability_set (list[DeviceCapability]): The capabilities this build knows (unknown ones are dropped).
            enabled (bool): Whether the household uses it (`PATCH /endpoints/{id}`): a disabled
                endpoint takes no commands, plays no music and blocks arming where
                home security watches it.
            external_id (str): The provider's stable id (never an IP address).
            features (list[str]):
            id (UUID):
            integration_id (UUID):
            kind (EndpointKind):
            last_seen (datetime.datetime | None):
            name (str):
            presented_as (None | PresentedAs):
            room_id (None | UUID):
            state (EndpointState): Live values the connector last read back, keyed by capability.
            state_updated_at (datetime.datetime | None):
            tenant_id (UUID):
     """

    address: None | str
    capabilities: EndpointCapabilitiesType0 | None
    capability_set: list[DeviceCapability]
    enabled: bool
    external_id: str
    features: list[str]
    id: UUID
    integration_id: UUID
    kind: EndpointKind
    last_seen: datetime.datetime | None
    name: str
    presented_as: None | PresentedAs
    room_id: None | UUID
    state: EndpointState
    state_updated_at: datetime.datetime | None
    tenant_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.endpoint_capabilities_type_0 import EndpointCapabilitiesType0 # noqa: PLC0415
        from ..models.endpoint_state import EndpointState # noqa: PLC0415
        address: None | str
        address = self.address

        capabilities: dict[str, Any] | None
        if isinstance(self.capabilities, EndpointCapabilitiesType0):
            capabilities = self.capabilities.to_dict()
        else:
            capabilities = self.capabilities

        capability_set = []
        for capability_set_item_data in self.capability_set:
            capability_set_item = capability_set_item_data.value
            capability_set.append(capability_set_item)



        enabled = self.enabled

        external_id = self.external_id

        features = self.features



        id = str(self.id)

        integration_id = str(self.integration_id)

        kind = self.kind.value

        last_seen: None | str
        if isinstance(self.last_seen, datetime.datetime):
            last_seen = self.last_seen.isoformat()
        else:
            last_seen = self.last_seen

        name = self.name

        presented_as: None | str
        if isinstance(self.presented_as, PresentedAs):
            presented_as = self.presented_as.value
        else:
            presented_as = self.presented_as

        room_id: None | str
        if isinstance(self.room_id, UUID):
            room_id = str(self.room_id)
        else:
            room_id = self.room_id

        state = self.state.to_dict()

        state_updated_at: None | str
        if isinstance(self.state_updated_at, datetime.datetime):
            state_updated_at = self.state_updated_at.isoformat()
        else:
            state_updated_at = self.state_updated_at

        tenant_id = str(self.tenant_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "address": address,
            "capabilities": capabilities,
            "capabilitySet": capability_set,
            "enabled": enabled,
            "externalId": external_id,
            "features": features,
            "id": id,
            "integrationId": integration_id,
            "kind": kind,
            "lastSeen": last_seen,
            "name": name,
            "presentedAs": presented_as,
            "roomId": room_id,
            "state": state,
            "stateUpdatedAt": state_updated_at,
            "tenantId": tenant_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.endpoint_capabilities_type_0 import EndpointCapabilitiesType0 # noqa: PLC0415
        from ..models.endpoint_state import EndpointState # noqa: PLC0415
        d = dict(src_dict)
        def _parse_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        address = _parse_address(d.pop("address"))


        def _parse_capabilities(data: object) -> EndpointCapabilitiesType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capabilities_type_0 = EndpointCapabilitiesType0.from_dict(data)



                return capabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EndpointCapabilitiesType0 | None, data)

        capabilities = _parse_capabilities(d.pop("capabilities"))


        capability_set = []
        _capability_set = d.pop("capabilitySet")
        for capability_set_item_data in (_capability_set):
            capability_set_item = DeviceCapability(capability_set_item_data)



            capability_set.append(capability_set_item)


        enabled = d.pop("enabled")

        external_id = d.pop("externalId")

        features = cast(list[str], d.pop("features"))


        id = UUID(d.pop("id"))




        integration_id = UUID(d.pop("integrationId"))




        kind = EndpointKind(d.pop("kind"))




        def _parse_last_seen(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_type_0 = datetime.datetime.fromisoformat(data)



                return last_seen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_seen = _parse_last_seen(d.pop("lastSeen"))


        name = d.pop("name")

        def _parse_presented_as(data: object) -> None | PresentedAs:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                presented_as_type_1 = PresentedAs(data)



                return presented_as_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PresentedAs, data)

        presented_as = _parse_presented_as(d.pop("presentedAs"))


        def _parse_room_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                room_id_type_1 = UUID(data)



                return room_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        room_id = _parse_room_id(d.pop("roomId"))


        state = EndpointState.from_dict(d.pop("state"))




        def _parse_state_updated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_updated_at_type_0 = datetime.datetime.fromisoformat(data)



                return state_updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        state_updated_at = _parse_state_updated_at(d.pop("stateUpdatedAt"))


        tenant_id = UUID(d.pop("tenantId"))




        endpoint = cls(
            address=address,
            capabilities=capabilities,
            capability_set=capability_set,
            enabled=enabled,
            external_id=external_id,
            features=features,
            id=id,
            integration_id=integration_id,
            kind=kind,
            last_seen=last_seen,
            name=name,
            presented_as=presented_as,
            room_id=room_id,
            state=state,
            state_updated_at=state_updated_at,
            tenant_id=tenant_id,
        )


        endpoint.additional_properties = d
        return endpoint

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
