from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.applied_thing import AppliedThing
  from ..models.thing_outcome import ThingOutcome





T = TypeVar("T", bound="ActionResult")



@_attrs_define
class ActionResult:
    """ Per-thing outcome of a room or property action.

        Attributes:
            action (str):
            applied (list[AppliedThing]): Devices: commands accepted and published (the state changes when
                the device reports back). Endpoints: applied by the connector (the
                state it read back is stored).
            capability (str):
            failed (list[ThingOutcome]): Things the command could not be sent to, with the reason.
            skipped (list[ThingOutcome]): Things that do not offer the action, or for listening whose room
                already had that choice.
            value (Any): The value sent (null when no member offers the action).
     """

    action: str
    applied: list[AppliedThing]
    capability: str
    failed: list[ThingOutcome]
    skipped: list[ThingOutcome]
    value: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.applied_thing import AppliedThing # noqa: PLC0415
        from ..models.thing_outcome import ThingOutcome # noqa: PLC0415
        action = self.action

        applied = []
        for applied_item_data in self.applied:
            applied_item = applied_item_data.to_dict()
            applied.append(applied_item)



        capability = self.capability

        failed = []
        for failed_item_data in self.failed:
            failed_item = failed_item_data.to_dict()
            failed.append(failed_item)



        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)



        value = self.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "applied": applied,
            "capability": capability,
            "failed": failed,
            "skipped": skipped,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.applied_thing import AppliedThing # noqa: PLC0415
        from ..models.thing_outcome import ThingOutcome # noqa: PLC0415
        d = dict(src_dict)
        action = d.pop("action")

        applied = []
        _applied = d.pop("applied")
        for applied_item_data in (_applied):
            applied_item = AppliedThing.from_dict(applied_item_data)



            applied.append(applied_item)


        capability = d.pop("capability")

        failed = []
        _failed = d.pop("failed")
        for failed_item_data in (_failed):
            failed_item = ThingOutcome.from_dict(failed_item_data)



            failed.append(failed_item)


        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in (_skipped):
            skipped_item = ThingOutcome.from_dict(skipped_item_data)



            skipped.append(skipped_item)


        value = d.pop("value")

        action_result = cls(
            action=action,
            applied=applied,
            capability=capability,
            failed=failed,
            skipped=skipped,
            value=value,
        )


        action_result.additional_properties = d
        return action_result

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
