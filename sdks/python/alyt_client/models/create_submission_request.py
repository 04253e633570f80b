from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ai_declaration import AiDeclaration
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.create_submission_request_descriptor import CreateSubmissionRequestDescriptor





T = TypeVar("T", bound="CreateSubmissionRequest")



@_attrs_define
class CreateSubmissionRequest:
    """ 
        Attributes:
            ai_declaration (AiDeclaration): How the connector uses AI (spec: catalogue definition `aiDeclaration`).
            connector_id (UUID):
            descriptor (CreateSubmissionRequestDescriptor): The connector descriptor of the spec (its pairing included).
            prose (str): What households read about the connector (1-20000 characters).
            semver (str): A semantic version greater than every earlier version of the
                connector; the descriptor's `version` says the same.
            draft (bool | Unset): Keep the version a draft instead of submitting it (default false).
     """

    ai_declaration: AiDeclaration
    connector_id: UUID
    descriptor: CreateSubmissionRequestDescriptor
    prose: str
    semver: str
    draft: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.create_submission_request_descriptor import CreateSubmissionRequestDescriptor # noqa: PLC0415
        ai_declaration = self.ai_declaration.value

        connector_id = str(self.connector_id)

        descriptor = self.descriptor.to_dict()

        prose = self.prose

        semver = self.semver

        draft = self.draft


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "aiDeclaration": ai_declaration,
            "connectorId": connector_id,
            "descriptor": descriptor,
            "prose": prose,
            "semver": semver,
        })
        if draft is not UNSET:
            field_dict["draft"] = draft

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_submission_request_descriptor import CreateSubmissionRequestDescriptor # noqa: PLC0415
        d = dict(src_dict)
        ai_declaration = AiDeclaration(d.pop("aiDeclaration"))




        connector_id = UUID(d.pop("connectorId"))




        descriptor = CreateSubmissionRequestDescriptor.from_dict(d.pop("descriptor"))




        prose = d.pop("prose")

        semver = d.pop("semver")

        draft = d.pop("draft", UNSET)

        create_submission_request = cls(
            ai_declaration=ai_declaration,
            connector_id=connector_id,
            descriptor=descriptor,
            prose=prose,
            semver=semver,
            draft=draft,
        )

        return create_submission_request

