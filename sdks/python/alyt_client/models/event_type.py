from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.event_type_example import EventTypeExample
  from ..models.event_type_schema import EventTypeSchema





T = TypeVar("T", bound="EventType")



@_attrs_define
class EventType:
    """ One kind of platform event.

        Attributes:
            description (str):
            example (EventTypeExample): An envelope of this kind, as a delivery carries it.
            schema (EventTypeSchema): A JSON Schema (2020-12) of the whole envelope of this kind,
                self-contained (what it refers to is in its `$defs`).
            type_ (str): The kind: the envelope's `type`, and what webhook filters and the
                stream's `events` name.
     """

    description: str
    example: EventTypeExample
    schema: EventTypeSchema
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_type_example import EventTypeExample # noqa: PLC0415
        from ..models.event_type_schema import EventTypeSchema # noqa: PLC0415
        description = self.description

        example = self.example.to_dict()

        schema = self.schema.to_dict()

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "description": description,
            "example": example,
            "schema": schema,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_example import EventTypeExample # noqa: PLC0415
        from ..models.event_type_schema import EventTypeSchema # noqa: PLC0415
        d = dict(src_dict)
        description = d.pop("description")

        example = EventTypeExample.from_dict(d.pop("example"))




        schema = EventTypeSchema.from_dict(d.pop("schema"))




        type_ = d.pop("type")

        event_type = cls(
            description=description,
            example=example,
            schema=schema,
            type_=type_,
        )


        event_type.additional_properties = d
        return event_type

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
