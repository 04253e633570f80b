from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.step_type_0 import StepType0
  from ..models.step_type_1 import StepType1
  from ..models.step_type_2 import StepType2
  from ..models.step_type_3 import StepType3
  from ..models.step_type_4 import StepType4
  from ..models.trigger_type_0 import TriggerType0
  from ..models.trigger_type_1 import TriggerType1





T = TypeVar("T", bound="ListResponseRoutineItemsItem")



@_attrs_define
class ListResponseRoutineItemsItem:
    """ A routine as the household reads it.

        Attributes:
            created_at (datetime.datetime):
            do (list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4]): The steps in order: `thing`, `room`,
                `delay`, `music`, `security`.
            enabled (bool):
            id (UUID):
            name (str):
            next_due (datetime.datetime | None): When a time trigger fires next (null: disabled or no time trigger).
            property_id (UUID):
            triggers (list[TriggerType0 | TriggerType1]): `{ kind: 'manual' }` or `{ kind: 'time', at: 'HH:MM', days:
                ['mon', …] }`.
            updated_at (datetime.datetime):
     """

    created_at: datetime.datetime
    do: list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4]
    enabled: bool
    id: UUID
    name: str
    next_due: datetime.datetime | None
    property_id: UUID
    triggers: list[TriggerType0 | TriggerType1]
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_type_0 import StepType0 # noqa: PLC0415
        from ..models.step_type_1 import StepType1 # noqa: PLC0415
        from ..models.step_type_2 import StepType2 # noqa: PLC0415
        from ..models.step_type_3 import StepType3 # noqa: PLC0415
        from ..models.step_type_4 import StepType4 # noqa: PLC0415
        from ..models.trigger_type_0 import TriggerType0 # noqa: PLC0415
        from ..models.trigger_type_1 import TriggerType1 # noqa: PLC0415
        created_at = self.created_at.isoformat()

        do = []
        for do_item_data in self.do:
            do_item: dict[str, Any]
            if isinstance(do_item_data, StepType0):
                do_item = do_item_data.to_dict()
            elif isinstance(do_item_data, StepType1):
                do_item = do_item_data.to_dict()
            elif isinstance(do_item_data, StepType2):
                do_item = do_item_data.to_dict()
            elif isinstance(do_item_data, StepType3):
                do_item = do_item_data.to_dict()
            else:
                do_item = do_item_data.to_dict()

            do.append(do_item)



        enabled = self.enabled

        id = str(self.id)

        name = self.name

        next_due: None | str
        if isinstance(self.next_due, datetime.datetime):
            next_due = self.next_due.isoformat()
        else:
            next_due = self.next_due

        property_id = str(self.property_id)

        triggers = []
        for triggers_item_data in self.triggers:
            triggers_item: dict[str, Any]
            if isinstance(triggers_item_data, TriggerType0):
                triggers_item = triggers_item_data.to_dict()
            else:
                triggers_item = triggers_item_data.to_dict()

            triggers.append(triggers_item)



        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "createdAt": created_at,
            "do": do,
            "enabled": enabled,
            "id": id,
            "name": name,
            "nextDue": next_due,
            "propertyId": property_id,
            "triggers": triggers,
            "updatedAt": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_type_0 import StepType0 # noqa: PLC0415
        from ..models.step_type_1 import StepType1 # noqa: PLC0415
        from ..models.step_type_2 import StepType2 # noqa: PLC0415
        from ..models.step_type_3 import StepType3 # noqa: PLC0415
        from ..models.step_type_4 import StepType4 # noqa: PLC0415
        from ..models.trigger_type_0 import TriggerType0 # noqa: PLC0415
        from ..models.trigger_type_1 import TriggerType1 # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        do = []
        _do = d.pop("do")
        for do_item_data in (_do):
            def _parse_do_item(data: object) -> StepType0 | StepType1 | StepType2 | StepType3 | StepType4:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_0 = StepType0.from_dict(data)



                    return componentsschemas_step_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_1 = StepType1.from_dict(data)



                    return componentsschemas_step_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_2 = StepType2.from_dict(data)



                    return componentsschemas_step_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_step_type_3 = StepType3.from_dict(data)



                    return componentsschemas_step_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_step_type_4 = StepType4.from_dict(data)



                return componentsschemas_step_type_4

            do_item = _parse_do_item(do_item_data)

            do.append(do_item)


        enabled = d.pop("enabled")

        id = UUID(d.pop("id"))




        name = d.pop("name")

        def _parse_next_due(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_due_type_0 = datetime.datetime.fromisoformat(data)



                return next_due_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_due = _parse_next_due(d.pop("nextDue"))


        property_id = UUID(d.pop("propertyId"))




        triggers = []
        _triggers = d.pop("triggers")
        for triggers_item_data in (_triggers):
            def _parse_triggers_item(data: object) -> TriggerType0 | TriggerType1:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_trigger_type_0 = TriggerType0.from_dict(data)



                    return componentsschemas_trigger_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_trigger_type_1 = TriggerType1.from_dict(data)



                return componentsschemas_trigger_type_1

            triggers_item = _parse_triggers_item(triggers_item_data)

            triggers.append(triggers_item)


        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        list_response_routine_items_item = cls(
            created_at=created_at,
            do=do,
            enabled=enabled,
            id=id,
            name=name,
            next_due=next_due,
            property_id=property_id,
            triggers=triggers,
            updated_at=updated_at,
        )


        list_response_routine_items_item.additional_properties = d
        return list_response_routine_items_item

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
