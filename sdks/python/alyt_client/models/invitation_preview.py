from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.role_word import RoleWord
from typing import cast

if TYPE_CHECKING:
  from ..models.invited_home import InvitedHome
  from ..models.invited_stay import InvitedStay
  from ..models.inviter import Inviter
  from ..models.inviting_household import InvitingHousehold





T = TypeVar("T", bound="InvitationPreview")



@_attrs_define
class InvitationPreview:
    """ What a live link shows before it is accepted.

        Attributes:
            email (str): The invited address, masked (`a•••@example.com`).
            has_account (bool): Whether the address has an account: then accepting takes its
                password (and TOTP code), else a name and a new password.
            home (InvitedHome | None):
            household (InvitingHousehold):
            inviter (Inviter):
            role (RoleWord): The role as the invitation shows it.
            stay (InvitedStay | None):
     """

    email: str
    has_account: bool
    home: InvitedHome | None
    household: InvitingHousehold
    inviter: Inviter
    role: RoleWord
    stay: InvitedStay | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.invited_home import InvitedHome # noqa: PLC0415
        from ..models.invited_stay import InvitedStay # noqa: PLC0415
        from ..models.inviter import Inviter # noqa: PLC0415
        from ..models.inviting_household import InvitingHousehold # noqa: PLC0415
        email = self.email

        has_account = self.has_account

        home: dict[str, Any] | None
        if isinstance(self.home, InvitedHome):
            home = self.home.to_dict()
        else:
            home = self.home

        household = self.household.to_dict()

        inviter = self.inviter.to_dict()

        role = self.role.value

        stay: dict[str, Any] | None
        if isinstance(self.stay, InvitedStay):
            stay = self.stay.to_dict()
        else:
            stay = self.stay


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "email": email,
            "hasAccount": has_account,
            "home": home,
            "household": household,
            "inviter": inviter,
            "role": role,
            "stay": stay,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invited_home import InvitedHome # noqa: PLC0415
        from ..models.invited_stay import InvitedStay # noqa: PLC0415
        from ..models.inviter import Inviter # noqa: PLC0415
        from ..models.inviting_household import InvitingHousehold # noqa: PLC0415
        d = dict(src_dict)
        email = d.pop("email")

        has_account = d.pop("hasAccount")

        def _parse_home(data: object) -> InvitedHome | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                home_type_1 = InvitedHome.from_dict(data)



                return home_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InvitedHome | None, data)

        home = _parse_home(d.pop("home"))


        household = InvitingHousehold.from_dict(d.pop("household"))




        inviter = Inviter.from_dict(d.pop("inviter"))




        role = RoleWord(d.pop("role"))




        def _parse_stay(data: object) -> InvitedStay | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stay_type_1 = InvitedStay.from_dict(data)



                return stay_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InvitedStay | None, data)

        stay = _parse_stay(d.pop("stay"))


        invitation_preview = cls(
            email=email,
            has_account=has_account,
            home=home,
            household=household,
            inviter=inviter,
            role=role,
            stay=stay,
        )


        invitation_preview.additional_properties = d
        return invitation_preview

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
