from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.presented_as import PresentedAs
from ..models.thing_category import ThingCategory
from ..models.thing_kind import ThingKind
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.capability_descriptor import CapabilityDescriptor
  from ..models.liveness import Liveness
  from ..models.thing_settings import ThingSettings
  from ..models.thing_state import ThingState





T = TypeVar("T", bound="Thing")



@_attrs_define
class Thing:
    """ The rendered view of a device or endpoint (spec: Resources > Thing).

        Attributes:
            capabilities (list[CapabilityDescriptor]): The descriptors the client draws the thing with.
            category (ThingCategory): The category a thing is shown as; decides its default icon.
            icon (str): A kebab-case icon token.
            id (UUID):
            kind (ThingKind): Whether a thing is a device or an endpoint.
            liveness (Liveness | None):
            name (str):
            presentable (bool): Whether `presentedAs` may be set; false on devices.
            presented_as (None | PresentedAs):
            room_id (None | UUID):
            settings (ThingSettings): Settings keyed by capability (`{}` when none were set).
            state (ThingState): Keyed `capabilityId.controlKey`.
            state_updated_at (datetime.datetime | None):
     """

    capabilities: list[CapabilityDescriptor]
    category: ThingCategory
    icon: str
    id: UUID
    kind: ThingKind
    liveness: Liveness | None
    name: str
    presentable: bool
    presented_as: None | PresentedAs
    room_id: None | UUID
    settings: ThingSettings
    state: ThingState
    state_updated_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.capability_descriptor import CapabilityDescriptor # noqa: PLC0415
        from ..models.liveness import Liveness # noqa: PLC0415
        from ..models.thing_settings import ThingSettings # noqa: PLC0415
        from ..models.thing_state import ThingState # noqa: PLC0415
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.to_dict()
            capabilities.append(capabilities_item)



        category = self.category.value

        icon = self.icon

        id = str(self.id)

        kind = self.kind.value

        liveness: dict[str, Any] | None
        if isinstance(self.liveness, Liveness):
            liveness = self.liveness.to_dict()
        else:
            liveness = self.liveness

        name = self.name

        presentable = self.presentable

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

        settings = self.settings.to_dict()

        state = self.state.to_dict()

        state_updated_at: None | str
        if isinstance(self.state_updated_at, datetime.datetime):
            state_updated_at = self.state_updated_at.isoformat()
        else:
            state_updated_at = self.state_updated_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capabilities": capabilities,
            "category": category,
            "icon": icon,
            "id": id,
            "kind": kind,
            "liveness": liveness,
            "name": name,
            "presentable": presentable,
            "presentedAs": presented_as,
            "roomId": room_id,
            "settings": settings,
            "state": state,
            "stateUpdatedAt": state_updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capability_descriptor import CapabilityDescriptor # noqa: PLC0415
        from ..models.liveness import Liveness # noqa: PLC0415
        from ..models.thing_settings import ThingSettings # noqa: PLC0415
        from ..models.thing_state import ThingState # noqa: PLC0415
        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in (_capabilities):
            capabilities_item = CapabilityDescriptor.from_dict(capabilities_item_data)



            capabilities.append(capabilities_item)


        category = ThingCategory(d.pop("category"))




        icon = d.pop("icon")

        id = UUID(d.pop("id"))




        kind = ThingKind(d.pop("kind"))




        def _parse_liveness(data: object) -> Liveness | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                liveness_type_1 = Liveness.from_dict(data)



                return liveness_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Liveness | None, data)

        liveness = _parse_liveness(d.pop("liveness"))


        name = d.pop("name")

        presentable = d.pop("presentable")

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


        settings = ThingSettings.from_dict(d.pop("settings"))




        state = ThingState.from_dict(d.pop("state"))




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


        thing = cls(
            capabilities=capabilities,
            category=category,
            icon=icon,
            id=id,
            kind=kind,
            liveness=liveness,
            name=name,
            presentable=presentable,
            presented_as=presented_as,
            room_id=room_id,
            settings=settings,
            state=state,
            state_updated_at=state_updated_at,
        )


        thing.additional_properties = d
        return thing

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
