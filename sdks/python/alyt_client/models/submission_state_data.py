from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.review_state import ReviewState
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="SubmissionStateData")



@_attrs_define
class SubmissionStateData:
    """ The data of `submission.state`: a connector version changed review
    state. Raised in the developer's sandbox tenant, so the developer's
    stream and DEV-key webhooks hear it (a LIVE key hears only its
    integrations' events, and households never see a sandbox).

        Attributes:
            at (datetime.datetime):
            semver (str):
            slug (str):
            state (ReviewState): Where a connector version stands in review.
            version_id (UUID):
     """

    at: datetime.datetime
    semver: str
    slug: str
    state: ReviewState
    version_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        semver = self.semver

        slug = self.slug

        state = self.state.value

        version_id = str(self.version_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "at": at,
            "semver": semver,
            "slug": slug,
            "state": state,
            "versionId": version_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))




        semver = d.pop("semver")

        slug = d.pop("slug")

        state = ReviewState(d.pop("state"))




        version_id = UUID(d.pop("versionId"))




        submission_state_data = cls(
            at=at,
            semver=semver,
            slug=slug,
            state=state,
            version_id=version_id,
        )


        submission_state_data.additional_properties = d
        return submission_state_data

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
