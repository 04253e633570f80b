from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.sample_script_script import SampleScriptScript





T = TypeVar("T", bound="SampleScript")



@_attrs_define
class SampleScript:
    """ A script shipped with the platform.

        Attributes:
            description (str):
            script (SampleScriptScript): A script to store as it is (`POST …/scripts`) or to start from.
            slug (str):
     """

    description: str
    script: SampleScriptScript
    slug: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.sample_script_script import SampleScriptScript # noqa: PLC0415
        description = self.description

        script = self.script.to_dict()

        slug = self.slug


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "description": description,
            "script": script,
            "slug": slug,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sample_script_script import SampleScriptScript # noqa: PLC0415
        d = dict(src_dict)
        description = d.pop("description")

        script = SampleScriptScript.from_dict(d.pop("script"))




        slug = d.pop("slug")

        sample_script = cls(
            description=description,
            script=script,
            slug=slug,
        )


        sample_script.additional_properties = d
        return sample_script

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
