from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.step_type_0 import StepType0
  from ..models.step_type_1 import StepType1
  from ..models.step_type_2 import StepType2
  from ..models.step_type_3 import StepType3
  from ..models.step_type_4 import StepType4
  from ..models.trigger_type_0 import TriggerType0
  from ..models.trigger_type_1 import TriggerType1





T = TypeVar("T", bound="RoutineRequest")



@_attrs_define
class RoutineRequest:
    """ The body of a new routine (and, every field optional, of a change).

        Attributes:
            do (list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4]): 1-50 steps; delays add up to at most 3600
                seconds.
            name (str): 1-80 characters.
            enabled (bool | None | Unset): Default true.
            triggers (list[TriggerType0 | TriggerType1] | None | Unset): At most 10; none means manual only.
     """

    do: list[StepType0 | StepType1 | StepType2 | StepType3 | StepType4]
    name: str
    enabled: bool | None | Unset = UNSET
    triggers: list[TriggerType0 | TriggerType1] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_type_0 import StepType0 # noqa: PLC0415
        from ..models.step_type_1 import StepType1 # noqa: PLC0415
        from ..models.step_type_2 import StepType2 # noqa: PLC0415
        from ..models.step_type_3 import StepType3 # noqa: PLC0415
        from ..models.step_type_4 import StepType4 # noqa: PLC0415
        from ..models.trigger_type_0 import TriggerType0 # noqa: PLC0415
        from ..models.trigger_type_1 import TriggerType1 # noqa: PLC0415
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



        name = self.name

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        triggers: list[dict[str, Any]] | None | Unset
        if isinstance(self.triggers, Unset):
            triggers = UNSET
        elif isinstance(self.triggers, list):
            triggers = []
            for triggers_type_0_item_data in self.triggers:
                triggers_type_0_item: dict[str, Any]
                if isinstance(triggers_type_0_item_data, TriggerType0):
                    triggers_type_0_item = triggers_type_0_item_data.to_dict()
                else:
                    triggers_type_0_item = triggers_type_0_item_data.to_dict()

                triggers.append(triggers_type_0_item)


        else:
            triggers = self.triggers


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "do": do,
            "name": name,
        })
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if triggers is not UNSET:
            field_dict["triggers"] = triggers

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


        name = d.pop("name")

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))


        def _parse_triggers(data: object) -> list[TriggerType0 | TriggerType1] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                triggers_type_0 = []
                _triggers_type_0 = data
                for triggers_type_0_item_data in (_triggers_type_0):
                    def _parse_triggers_type_0_item(data: object) -> TriggerType0 | TriggerType1:
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

                    triggers_type_0_item = _parse_triggers_type_0_item(triggers_type_0_item_data)

                    triggers_type_0.append(triggers_type_0_item)

                return triggers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TriggerType0 | TriggerType1] | None | Unset, data)

        triggers = _parse_triggers(d.pop("triggers", UNSET))


        routine_request = cls(
            do=do,
            name=name,
            enabled=enabled,
            triggers=triggers,
        )


        routine_request.additional_properties = d
        return routine_request

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
