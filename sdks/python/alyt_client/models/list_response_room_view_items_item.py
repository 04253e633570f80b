from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.action_ref import ActionRef
  from ..models.action_value import ActionValue
  from ..models.available_action import AvailableAction
  from ..models.device import Device
  from ..models.endpoint import Endpoint
  from ..models.thing import Thing





T = TypeVar("T", bound="ListResponseRoomViewItemsItem")



@_attrs_define
class ListResponseRoomViewItemsItem:
    """ The resolved room view (spec: Room and overview).

        Attributes:
            action_values (list[ActionValue]): Computed here: toggle = any member on, lock = all locked, number =
                the maximum, listening = the room flag.
            available_actions (list[AvailableAction]): What the members offer.
            chosen_actions (list[ActionRef] | None): As stored; null means the defaults.
            devices (list[Device]): The member devices' rows.
            endpoints (list[Endpoint]): The member endpoints' objects.
            icon (str): A token of the room-icon set; derived from the name unless chosen.
            id (UUID):
            listening (bool): Whether voice-capable things in the room listen for the wake word.
            name (str):
            primary_actions (list[ActionRef]): At most two, resolved: the chosen ones the room still serves, or the
                defaults in the order lights, volume, thermostat, listening.
            property_id (UUID):
            quiet_hours_end (int | None):
            quiet_hours_start (int | None):
            tenant_id (UUID):
            things (list[Thing]): The members' Thing views.
     """

    action_values: list[ActionValue]
    available_actions: list[AvailableAction]
    chosen_actions: list[ActionRef] | None
    devices: list[Device]
    endpoints: list[Endpoint]
    icon: str
    id: UUID
    listening: bool
    name: str
    primary_actions: list[ActionRef]
    property_id: UUID
    quiet_hours_end: int | None
    quiet_hours_start: int | None
    tenant_id: UUID
    things: list[Thing]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        from ..models.action_value import ActionValue # noqa: PLC0415
        from ..models.available_action import AvailableAction # noqa: PLC0415
        from ..models.device import Device # noqa: PLC0415
        from ..models.endpoint import Endpoint # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        action_values = []
        for action_values_item_data in self.action_values:
            action_values_item = action_values_item_data.to_dict()
            action_values.append(action_values_item)



        available_actions = []
        for available_actions_item_data in self.available_actions:
            available_actions_item = available_actions_item_data.to_dict()
            available_actions.append(available_actions_item)



        chosen_actions: list[dict[str, Any]] | None
        if isinstance(self.chosen_actions, list):
            chosen_actions = []
            for chosen_actions_type_0_item_data in self.chosen_actions:
                chosen_actions_type_0_item = chosen_actions_type_0_item_data.to_dict()
                chosen_actions.append(chosen_actions_type_0_item)


        else:
            chosen_actions = self.chosen_actions

        devices = []
        for devices_item_data in self.devices:
            devices_item = devices_item_data.to_dict()
            devices.append(devices_item)



        endpoints = []
        for endpoints_item_data in self.endpoints:
            endpoints_item = endpoints_item_data.to_dict()
            endpoints.append(endpoints_item)



        icon = self.icon

        id = str(self.id)

        listening = self.listening

        name = self.name

        primary_actions = []
        for primary_actions_item_data in self.primary_actions:
            primary_actions_item = primary_actions_item_data.to_dict()
            primary_actions.append(primary_actions_item)



        property_id = str(self.property_id)

        quiet_hours_end: int | None
        quiet_hours_end = self.quiet_hours_end

        quiet_hours_start: int | None
        quiet_hours_start = self.quiet_hours_start

        tenant_id = str(self.tenant_id)

        things = []
        for things_item_data in self.things:
            things_item = things_item_data.to_dict()
            things.append(things_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actionValues": action_values,
            "availableActions": available_actions,
            "chosenActions": chosen_actions,
            "devices": devices,
            "endpoints": endpoints,
            "icon": icon,
            "id": id,
            "listening": listening,
            "name": name,
            "primaryActions": primary_actions,
            "propertyId": property_id,
            "quietHoursEnd": quiet_hours_end,
            "quietHoursStart": quiet_hours_start,
            "tenantId": tenant_id,
            "things": things,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_ref import ActionRef # noqa: PLC0415
        from ..models.action_value import ActionValue # noqa: PLC0415
        from ..models.available_action import AvailableAction # noqa: PLC0415
        from ..models.device import Device # noqa: PLC0415
        from ..models.endpoint import Endpoint # noqa: PLC0415
        from ..models.thing import Thing # noqa: PLC0415
        d = dict(src_dict)
        action_values = []
        _action_values = d.pop("actionValues")
        for action_values_item_data in (_action_values):
            action_values_item = ActionValue.from_dict(action_values_item_data)



            action_values.append(action_values_item)


        available_actions = []
        _available_actions = d.pop("availableActions")
        for available_actions_item_data in (_available_actions):
            available_actions_item = AvailableAction.from_dict(available_actions_item_data)



            available_actions.append(available_actions_item)


        def _parse_chosen_actions(data: object) -> list[ActionRef] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                chosen_actions_type_0 = []
                _chosen_actions_type_0 = data
                for chosen_actions_type_0_item_data in (_chosen_actions_type_0):
                    chosen_actions_type_0_item = ActionRef.from_dict(chosen_actions_type_0_item_data)



                    chosen_actions_type_0.append(chosen_actions_type_0_item)

                return chosen_actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ActionRef] | None, data)

        chosen_actions = _parse_chosen_actions(d.pop("chosenActions"))


        devices = []
        _devices = d.pop("devices")
        for devices_item_data in (_devices):
            devices_item = Device.from_dict(devices_item_data)



            devices.append(devices_item)


        endpoints = []
        _endpoints = d.pop("endpoints")
        for endpoints_item_data in (_endpoints):
            endpoints_item = Endpoint.from_dict(endpoints_item_data)



            endpoints.append(endpoints_item)


        icon = d.pop("icon")

        id = UUID(d.pop("id"))




        listening = d.pop("listening")

        name = d.pop("name")

        primary_actions = []
        _primary_actions = d.pop("primaryActions")
        for primary_actions_item_data in (_primary_actions):
            primary_actions_item = ActionRef.from_dict(primary_actions_item_data)



            primary_actions.append(primary_actions_item)


        property_id = UUID(d.pop("propertyId"))




        def _parse_quiet_hours_end(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        quiet_hours_end = _parse_quiet_hours_end(d.pop("quietHoursEnd"))


        def _parse_quiet_hours_start(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        quiet_hours_start = _parse_quiet_hours_start(d.pop("quietHoursStart"))


        tenant_id = UUID(d.pop("tenantId"))




        things = []
        _things = d.pop("things")
        for things_item_data in (_things):
            things_item = Thing.from_dict(things_item_data)



            things.append(things_item)


        list_response_room_view_items_item = cls(
            action_values=action_values,
            available_actions=available_actions,
            chosen_actions=chosen_actions,
            devices=devices,
            endpoints=endpoints,
            icon=icon,
            id=id,
            listening=listening,
            name=name,
            primary_actions=primary_actions,
            property_id=property_id,
            quiet_hours_end=quiet_hours_end,
            quiet_hours_start=quiet_hours_start,
            tenant_id=tenant_id,
            things=things,
        )


        list_response_room_view_items_item.additional_properties = d
        return list_response_room_view_items_item

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
