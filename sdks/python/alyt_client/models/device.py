from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_capability import DeviceCapability
from ..models.device_kind import DeviceKind
from ..models.device_status import DeviceStatus
from ..models.firmware_channel import FirmwareChannel
from ..models.protocol import Protocol
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.device_settings import DeviceSettings
  from ..models.liveness import Liveness
  from ..models.reported import Reported
  from ..models.thing import Thing
  from ..models.unit import Unit





T = TypeVar("T", bound="Device")



@_attrs_define
class Device:
    """ A device row (spec: Resources > Device). Every field is always present.

        Attributes:
            capabilities (list[DeviceCapability]): A set: no value twice.
            created_at (datetime.datetime):
            current_unit (None | Unit):
            current_unit_id (None | UUID):
            deleted_at (datetime.datetime | None):
            features (list[str]): Features the device honours.
            firmware_channel (FirmwareChannel):
            id (UUID):
            kind (DeviceKind):
            last_seen (datetime.datetime | None):
            liveness (Liveness): The spec's liveness object of a device row.
            name (str):
            parent_device_id (None | UUID):
            property_id (None | UUID):
            protocol (None | Protocol):
            protocol_id (None | str):
            reported (None | Reported):
            room_id (None | UUID):
            settings (DeviceSettings | None):
            status (DeviceStatus):
            tenant_id (UUID):
            thing (Thing): The rendered view of a device or endpoint (spec: Resources > Thing).
            updated_at (datetime.datetime):
     """

    capabilities: list[DeviceCapability]
    created_at: datetime.datetime
    current_unit: None | Unit
    current_unit_id: None | UUID
    deleted_at: datetime.datetime | None
    features: list[str]
    firmware_channel: FirmwareChannel
    id: UUID
    kind: DeviceKind
    last_seen: datetime.datetime | None
    liveness: Liveness
    name: str
    parent_device_id: None | UUID
    property_id: None | UUID
    protocol: None | Protocol
    protocol_id: None | str
    reported: None | Reported
    room_id: None | UUID
    settings: DeviceSettings | None
    status: DeviceStatus
    tenant_id: UUID
    thing: Thing
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_settings import DeviceSettings # noqa: PLC0415
        from ..models.liveness import Liveness # noqa: PLC0415
        from ..models.reported import Reported # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        from ..models.unit import Unit # noqa: PLC0415
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.value
            capabilities.append(capabilities_item)



        created_at = self.created_at.isoformat()

        current_unit: dict[str, Any] | None
        if isinstance(self.current_unit, Unit):
            current_unit = self.current_unit.to_dict()
        else:
            current_unit = self.current_unit

        current_unit_id: None | str
        if isinstance(self.current_unit_id, UUID):
            current_unit_id = str(self.current_unit_id)
        else:
            current_unit_id = self.current_unit_id

        deleted_at: None | str
        if isinstance(self.deleted_at, datetime.datetime):
            deleted_at = self.deleted_at.isoformat()
        else:
            deleted_at = self.deleted_at

        features = self.features



        firmware_channel = self.firmware_channel.value

        id = str(self.id)

        kind = self.kind.value

        last_seen: None | str
        if isinstance(self.last_seen, datetime.datetime):
            last_seen = self.last_seen.isoformat()
        else:
            last_seen = self.last_seen

        liveness = self.liveness.to_dict()

        name = self.name

        parent_device_id: None | str
        if isinstance(self.parent_device_id, UUID):
            parent_device_id = str(self.parent_device_id)
        else:
            parent_device_id = self.parent_device_id

        property_id: None | str
        if isinstance(self.property_id, UUID):
            property_id = str(self.property_id)
        else:
            property_id = self.property_id

        protocol: None | str
        if isinstance(self.protocol, Protocol):
            protocol = self.protocol.value
        else:
            protocol = self.protocol

        protocol_id: None | str
        protocol_id = self.protocol_id

        reported: dict[str, Any] | None
        if isinstance(self.reported, Reported):
            reported = self.reported.to_dict()
        else:
            reported = self.reported

        room_id: None | str
        if isinstance(self.room_id, UUID):
            room_id = str(self.room_id)
        else:
            room_id = self.room_id

        settings: dict[str, Any] | None
        if isinstance(self.settings, DeviceSettings):
            settings = self.settings.to_dict()
        else:
            settings = self.settings

        status = self.status.value

        tenant_id = str(self.tenant_id)

        thing = self.thing.to_dict()

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capabilities": capabilities,
            "createdAt": created_at,
            "currentUnit": current_unit,
            "currentUnitId": current_unit_id,
            "deletedAt": deleted_at,
            "features": features,
            "firmwareChannel": firmware_channel,
            "id": id,
            "kind": kind,
            "lastSeen": last_seen,
            "liveness": liveness,
            "name": name,
            "parentDeviceId": parent_device_id,
            "propertyId": property_id,
            "protocol": protocol,
            "protocolId": protocol_id,
            "reported": reported,
            "roomId": room_id,
            "settings": settings,
            "status": status,
            "tenantId": tenant_id,
            "thing": thing,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_settings import DeviceSettings # noqa: PLC0415
        from ..models.liveness import Liveness # noqa: PLC0415
        from ..models.reported import Reported # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        from ..models.unit import Unit # noqa: PLC0415
        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = DeviceCapability(capabilities_item_data)



            capabilities.append(capabilities_item)


        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        def _parse_current_unit(data: object) -> None | Unit:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_unit_type_1 = Unit.from_dict(data)



                return current_unit_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unit, data)

        current_unit = _parse_current_unit(d.pop("currentUnit"))


        def _parse_current_unit_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                current_unit_id_type_0 = UUID(data)



                return current_unit_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        current_unit_id = _parse_current_unit_id(d.pop("currentUnitId"))


        def _parse_deleted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deleted_at_type_0 = datetime.datetime.fromisoformat(data)



                return deleted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        deleted_at = _parse_deleted_at(d.pop("deletedAt"))


        features = cast(list[str], d.pop("features"))


        firmware_channel = FirmwareChannel(d.pop("firmwareChannel"))




        id = UUID(d.pop("id"))




        kind = DeviceKind(d.pop("kind"))




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


        liveness = Liveness.from_dict(d.pop("liveness"))




        name = d.pop("name")

        def _parse_parent_device_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_device_id_type_1 = UUID(data)



                return parent_device_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        parent_device_id = _parse_parent_device_id(d.pop("parentDeviceId"))


        def _parse_property_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                property_id_type_1 = UUID(data)



                return property_id_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        property_id = _parse_property_id(d.pop("propertyId"))


        def _parse_protocol(data: object) -> None | Protocol:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                protocol_type_1 = Protocol(data)



                return protocol_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Protocol, data)

        protocol = _parse_protocol(d.pop("protocol"))


        def _parse_protocol_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        protocol_id = _parse_protocol_id(d.pop("protocolId"))


        def _parse_reported(data: object) -> None | Reported:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reported_type_1 = Reported.from_dict(data)



                return reported_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Reported, data)

        reported = _parse_reported(d.pop("reported"))


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


        def _parse_settings(data: object) -> DeviceSettings | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_type_1 = DeviceSettings.from_dict(data)



                return settings_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceSettings | None, data)

        settings = _parse_settings(d.pop("settings"))


        status = DeviceStatus(d.pop("status"))




        tenant_id = UUID(d.pop("tenantId"))




        thing = Thing.from_dict(d.pop("thing"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        device = cls(
            capabilities=capabilities,
            created_at=created_at,
            current_unit=current_unit,
            current_unit_id=current_unit_id,
            deleted_at=deleted_at,
            features=features,
            firmware_channel=firmware_channel,
            id=id,
            kind=kind,
            last_seen=last_seen,
            liveness=liveness,
            name=name,
            parent_device_id=parent_device_id,
            property_id=property_id,
            protocol=protocol,
            protocol_id=protocol_id,
            reported=reported,
            room_id=room_id,
            settings=settings,
            status=status,
            tenant_id=tenant_id,
            thing=thing,
            updated_at=updated_at,
        )


        device.additional_properties = d
        return device

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
