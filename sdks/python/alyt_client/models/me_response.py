from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.persona import Persona
from typing import cast

if TYPE_CHECKING:
  from ..models.claims import Claims
  from ..models.me_home import MeHome
  from ..models.preferences import Preferences





T = TypeVar("T", bound="MeResponse")



@_attrs_define
class MeResponse:
    """ 
        Attributes:
            claims (Claims): The claims of a session access token, exactly the spec's Claims object.
            homes (list[MeHome]): One entry per grant the person holds, open or not.
            persona (Persona): The console a person lands on (Me response).
            preferences (Preferences):
     """

    claims: Claims
    homes: list[MeHome]
    persona: Persona
    preferences: Preferences
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.claims import Claims # noqa: PLC0415
        from ..models.me_home import MeHome # noqa: PLC0415
        from ..models.preferences import Preferences # noqa: PLC0415
        claims = self.claims.to_dict()

        homes = []
        for homes_item_data in self.homes:
            homes_item = homes_item_data.to_dict()
            homes.append(homes_item)



        persona = self.persona.value

        preferences = self.preferences.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "claims": claims,
            "homes": homes,
            "persona": persona,
            "preferences": preferences,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.claims import Claims # noqa: PLC0415
        from ..models.me_home import MeHome # noqa: PLC0415
        from ..models.preferences import Preferences # noqa: PLC0415
        d = dict(src_dict)
        claims = Claims.from_dict(d.pop("claims"))




        homes = []
        _homes = d.pop("homes")
        for homes_item_data in (_homes):
            homes_item = MeHome.from_dict(homes_item_data)



            homes.append(homes_item)


        persona = Persona(d.pop("persona"))




        preferences = Preferences.from_dict(d.pop("preferences"))




        me_response = cls(
            claims=claims,
            homes=homes,
            persona=persona,
            preferences=preferences,
        )


        me_response.additional_properties = d
        return me_response

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
