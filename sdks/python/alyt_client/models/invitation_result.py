from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.invitation_outcome import InvitationOutcome
from typing import cast

if TYPE_CHECKING:
  from ..models.invitation import Invitation
  from ..models.member import Member





T = TypeVar("T", bound="InvitationResult")



@_attrs_define
class InvitationResult:
    """ The answer to `POST …/invitations`: the member when `added`, the
    invitation when `invited` (the other is null).

        Attributes:
            invitation (Invitation | None):
            member (Member | None):
            status (InvitationOutcome): What an invitation did.
     """

    invitation: Invitation | None
    member: Member | None
    status: InvitationOutcome
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.invitation import Invitation # noqa: PLC0415
        from ..models.member import Member # noqa: PLC0415
        invitation: dict[str, Any] | None
        if isinstance(self.invitation, Invitation):
            invitation = self.invitation.to_dict()
        else:
            invitation = self.invitation

        member: dict[str, Any] | None
        if isinstance(self.member, Member):
            member = self.member.to_dict()
        else:
            member = self.member

        status = self.status.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "invitation": invitation,
            "member": member,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invitation import Invitation # noqa: PLC0415
        from ..models.member import Member # noqa: PLC0415
        d = dict(src_dict)
        def _parse_invitation(data: object) -> Invitation | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                invitation_type_1 = Invitation.from_dict(data)



                return invitation_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Invitation | None, data)

        invitation = _parse_invitation(d.pop("invitation"))


        def _parse_member(data: object) -> Member | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                member_type_1 = Member.from_dict(data)



                return member_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Member | None, data)

        member = _parse_member(d.pop("member"))


        status = InvitationOutcome(d.pop("status"))




        invitation_result = cls(
            invitation=invitation,
            member=member,
            status=status,
        )


        invitation_result.additional_properties = d
        return invitation_result

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
