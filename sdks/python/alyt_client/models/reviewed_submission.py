from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ai_declaration import AiDeclaration
from ..models.review_state import ReviewState
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.submission_descriptor import SubmissionDescriptor





T = TypeVar("T", bound="ReviewedSubmission")



@_attrs_define
class ReviewedSubmission:
    """ A version as staff see it: the developer's view and who it belongs to.

        Attributes:
            ai_declaration (AiDeclaration): How the connector uses AI (spec: catalogue definition `aiDeclaration`).
            connector_id (UUID):
            created_at (datetime.datetime):
            descriptor (SubmissionDescriptor): The connector descriptor of the spec, as submitted.
            note (None | str): The last reviewer's note to the developer (required with a
                rejection or a request for changes).
            prose (str):
            published_at (datetime.datetime | None):
            semver (str):
            slug (str):
            state (ReviewState): Where a connector version stands in review.
            submitted_at (datetime.datetime | None):
            updated_at (datetime.datetime):
            version_id (UUID):
            developer_id (UUID):
            reviewed_by (None | UUID):
     """

    ai_declaration: AiDeclaration
    connector_id: UUID
    created_at: datetime.datetime
    descriptor: SubmissionDescriptor
    note: None | str
    prose: str
    published_at: datetime.datetime | None
    semver: str
    slug: str
    state: ReviewState
    submitted_at: datetime.datetime | None
    updated_at: datetime.datetime
    version_id: UUID
    developer_id: UUID
    reviewed_by: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.submission_descriptor import SubmissionDescriptor # noqa: PLC0415
        ai_declaration = self.ai_declaration.value

        connector_id = str(self.connector_id)

        created_at = self.created_at.isoformat()

        descriptor = self.descriptor.to_dict()

        note: None | str
        note = self.note

        prose = self.prose

        published_at: None | str
        if isinstance(self.published_at, datetime.datetime):
            published_at = self.published_at.isoformat()
        else:
            published_at = self.published_at

        semver = self.semver

        slug = self.slug

        state = self.state.value

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        updated_at = self.updated_at.isoformat()

        version_id = str(self.version_id)

        developer_id = str(self.developer_id)

        reviewed_by: None | str
        if isinstance(self.reviewed_by, UUID):
            reviewed_by = str(self.reviewed_by)
        else:
            reviewed_by = self.reviewed_by


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "aiDeclaration": ai_declaration,
            "connectorId": connector_id,
            "createdAt": created_at,
            "descriptor": descriptor,
            "note": note,
            "prose": prose,
            "publishedAt": published_at,
            "semver": semver,
            "slug": slug,
            "state": state,
            "submittedAt": submitted_at,
            "updatedAt": updated_at,
            "versionId": version_id,
            "developerId": developer_id,
            "reviewedBy": reviewed_by,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.submission_descriptor import SubmissionDescriptor # noqa: PLC0415
        d = dict(src_dict)
        ai_declaration = AiDeclaration(d.pop("aiDeclaration"))




        connector_id = UUID(d.pop("connectorId"))




        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        descriptor = SubmissionDescriptor.from_dict(d.pop("descriptor"))




        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))


        prose = d.pop("prose")

        def _parse_published_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                published_at_type_0 = datetime.datetime.fromisoformat(data)



                return published_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        published_at = _parse_published_at(d.pop("publishedAt"))


        semver = d.pop("semver")

        slug = d.pop("slug")

        state = ReviewState(d.pop("state"))




        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)



                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submittedAt"))


        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))




        version_id = UUID(d.pop("versionId"))




        developer_id = UUID(d.pop("developerId"))




        def _parse_reviewed_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reviewed_by_type_1 = UUID(data)



                return reviewed_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        reviewed_by = _parse_reviewed_by(d.pop("reviewedBy"))


        reviewed_submission = cls(
            ai_declaration=ai_declaration,
            connector_id=connector_id,
            created_at=created_at,
            descriptor=descriptor,
            note=note,
            prose=prose,
            published_at=published_at,
            semver=semver,
            slug=slug,
            state=state,
            submitted_at=submitted_at,
            updated_at=updated_at,
            version_id=version_id,
            developer_id=developer_id,
            reviewed_by=reviewed_by,
        )


        reviewed_submission.additional_properties = d
        return reviewed_submission

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
